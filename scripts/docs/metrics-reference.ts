/** docs/reference/metrics.md from the families /metrics serves (src/server/metrics-registry.ts). */
import { metricFamilies } from '../../src/server/metrics-registry.js';
import { code, generatedBanner, table } from './markdown.js';

export function metricsReference(): string {
  const rows = metricFamilies().map((f) => [
    code(f.name),
    f.type,
    f.labels.length === 0 ? '' : f.labels.map(code).join(', '),
    f.help,
  ]);
  return [
    generatedBanner('Metrics reference', '`src/server/metrics-registry.ts`'),
    '`GET /metrics` on the dashboard server (Prometheus text format). Besides the families below it serves',
    "prom-client's default process metrics (`process_*`, `nodejs_*`). What they are for, the scrape's auth and the",
    'Grafana dashboard: [operations.md, "Metrics"](../operations.md#metrics).',
    '',
    table(['metric', 'type', 'labels', 'help'], rows),
    '',
  ].join('\n');
}
