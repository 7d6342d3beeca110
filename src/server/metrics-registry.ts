/**
 * /metrics with prom-client: default process metrics, plus families filled at scrape time from Redis (see
 * scrape-data.ts). Names follow Prometheus conventions (`_total` counters, `_seconds`, base units); labels are
 * bounded: search, destination, status, stop reason, account key, remote, operation, queue, state. Never a record id.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
import { RUN_DURATION_BUCKETS_SECONDS, type TotalCounter } from '../runs/run-totals.js';
import type { RunStatus } from '../runs/run-summary.js';
import { warningCount } from '../runs/run-warnings.js';
import { redisAnswers, withDeadline } from './bounded.js';
import { loadScrapeData, type ScrapeData, type ScrapeSources } from './scrape-data.js';

type Labels = Record<string, string>;
interface Sample {
  labels: Labels;
  value: number;
}

const RUN_STATUSES: RunStatus[] = ['completed', 'partial', 'failed', 'delayed'];
const P = 'prospect_sync_';

export interface MetricsOptions extends ScrapeSources {
  /** Bound on the PING and on reading the scrape data (ms). */
  timeoutMs?: number;
}

export interface MetricsEndpoint {
  readonly contentType: string;
  /** 200 with every family, or 503 with the process metrics and `prospect_sync_redis_up 0` when Redis is down. */
  render(): Promise<{ status: number; body: string }>;
}

const searchLabels = (s: { search: string; destination: string }): Labels => ({
  search: s.search,
  destination: s.destination,
});

function totalsCounter(field: TotalCounter) {
  return (d: ScrapeData): Sample[] =>
    d.searches.map((s) => ({ labels: searchLabels(s), value: s.totals.counters[field] }));
}

export interface MetricFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  labels: string[];
}

interface Family extends MetricFamily {
  type: 'counter' | 'gauge';
  samples: (d: ScrapeData) => Sample[];
}

const FAMILIES: Family[] = [
  {
    name: `${P}records_fetched_total`,
    help: 'Records fetched from the API by finished runs',
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('fetched'),
  },
  {
    name: `${P}records_created_total`,
    help: 'Records created in the CRM',
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('created'),
  },
  {
    name: `${P}records_updated_total`,
    help: 'Records updated in the CRM',
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('updated'),
  },
  {
    name: `${P}records_unchanged_total`,
    help: 'Records skipped as unchanged since the last write',
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('unchanged'),
  },
  {
    name: `${P}records_rejected_total`,
    help: 'Records the CRM or the mapping refused',
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('rejected'),
  },
  {
    name: `${P}link_errors_total`,
    help: 'Records written whose link (person to company) failed',
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('linkErrors'),
  },
  {
    name: `${P}search_tokens_spent_total`,
    help: 'Search tokens spent by finished runs',
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('tokensSpent'),
  },
  {
    name: `${P}credits_spent_total`,
    help: 'Contact-reveal credits spent by finished runs',
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('creditsSpent'),
  },
  {
    name: `${P}run_requests_total`,
    help: 'API requests made by finished runs, by operation',
    type: 'counter',
    labels: ['search', 'destination', 'operation'],
    samples: (d) =>
      d.searches.flatMap((s) => [
        { labels: { ...searchLabels(s), operation: 'search' }, value: s.totals.counters.requestsSearch },
        { labels: { ...searchLabels(s), operation: 'count' }, value: s.totals.counters.requestsCount },
      ]),
  },
  {
    name: `${P}records_entered_total`,
    help: 'Records complete runs found newly matching the search (docs/runs.md, Mirror)',
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('entered'),
  },
  {
    name: `${P}records_left_total`,
    help: 'Members complete runs confirmed as leavers of the search',
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('left'),
  },
  {
    name: `${P}leave_actions_total`,
    help: "Leavers the search's onLeave acted on",
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('leaveActions'),
  },
  {
    name: `${P}list_members_added_total`,
    help: "Members the CRM added to the search's list (list:)",
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('listAdded'),
  },
  {
    name: `${P}list_members_removed_total`,
    help: "Leavers removed from the search's list (onLeave: removeFromList)",
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('listRemoved'),
  },
  {
    name: `${P}run_throttled_total`,
    help: 'API 429 answers seen by finished runs',
    type: 'counter',
    labels: ['search', 'destination'],
    samples: totalsCounter('throttled'),
  },
  {
    name: `${P}runs_total`,
    help: 'Finished runs by final status and stop reason (none: walked to the end)',
    type: 'counter',
    labels: ['search', 'destination', 'status', 'stop_reason'],
    samples: (d) =>
      d.searches.flatMap((s) =>
        Object.entries(s.totals.runs).map(([key, value]) => {
          const [status = '', reason = 'none'] = key.split('|');
          return { labels: { ...searchLabels(s), status, stop_reason: reason }, value };
        }),
      ),
  },
  {
    name: `${P}last_run_finish_timestamp_seconds`,
    help: 'When the last run of the search finished (Unix seconds)',
    type: 'gauge',
    labels: ['search', 'destination'],
    samples: (d) =>
      d.searches.flatMap((s) =>
        s.last ? [{ labels: searchLabels(s), value: Date.parse(s.last.finishedAt) / 1000 }] : [],
      ),
  },
  {
    name: `${P}last_run_status`,
    help: 'Final status of the last run: 1 for its status, 0 for the others',
    type: 'gauge',
    labels: ['search', 'destination', 'status'],
    samples: (d) =>
      d.searches.flatMap((s) =>
        s.last
          ? RUN_STATUSES.map((st) => ({
              labels: { ...searchLabels(s), status: st },
              value: s.last?.status === st ? 1 : 0,
            }))
          : [],
      ),
  },
  {
    name: `${P}last_run_credits_spent`,
    help: 'Credits the last run spent',
    type: 'gauge',
    labels: ['search', 'destination'],
    samples: (d) =>
      d.searches.flatMap((s) => (s.last ? [{ labels: searchLabels(s), value: s.last.creditsSpent }] : [])),
  },
  {
    name: `${P}last_run_warnings`,
    help: 'Warnings (rejects and failed links) of the last run',
    type: 'gauge',
    labels: ['search', 'destination'],
    samples: (d) =>
      d.searches.flatMap((s) => (s.last ? [{ labels: searchLabels(s), value: warningCount(s.last) }] : [])),
  },
  {
    name: `${P}search_tokens_remaining`,
    help: 'Search tokens left in the period, as the API last reported',
    type: 'gauge',
    labels: ['account'],
    samples: (d) =>
      d.budgets.flatMap((b) => (b.tokens ? [{ labels: { account: b.account }, value: b.tokens.remaining }] : [])),
  },
  {
    name: `${P}search_tokens_limit`,
    help: 'Search tokens per period (the allotment)',
    type: 'gauge',
    labels: ['account'],
    samples: (d) =>
      d.budgets.flatMap((b) =>
        b.tokens && b.tokens.limit >= 0 ? [{ labels: { account: b.account }, value: b.tokens.limit }] : [],
      ),
  },
  {
    name: `${P}search_tokens_reset_timestamp_seconds`,
    help: 'When the search-token allotment resets (Unix seconds)',
    type: 'gauge',
    labels: ['account'],
    samples: (d) =>
      d.budgets.flatMap((b) => (b.tokens ? [{ labels: { account: b.account }, value: b.tokens.resetAt / 1000 }] : [])),
  },
  {
    name: `${P}credits_spent_today`,
    help: 'Credits spent today (UTC day) by the account',
    type: 'gauge',
    labels: ['account'],
    samples: (d) => d.budgets.map((b) => ({ labels: { account: b.account }, value: b.creditsToday })),
  },
  {
    name: `${P}credits_cap`,
    help: 'Configured credit caps (source.credits); absent when not configured',
    type: 'gauge',
    labels: ['scope'],
    samples: (d) => [
      ...(d.creditCaps.maxPerDay !== null ? [{ labels: { scope: 'day' }, value: d.creditCaps.maxPerDay }] : []),
      ...(d.creditCaps.maxPerRun !== null ? [{ labels: { scope: 'run' }, value: d.creditCaps.maxPerRun }] : []),
    ],
  },
  {
    name: `${P}api_requests_total`,
    help: 'Requests per remote (source, hubspot, salesforce), account and operation, by status class',
    type: 'counter',
    labels: ['remote', 'account', 'operation', 'class'],
    samples: (d) =>
      d.governors.flatMap((g) =>
        Object.entries(g.requests).map(([cls, value]) => ({
          labels: { remote: g.remote, account: g.account, operation: g.operation, class: cls },
          value,
        })),
      ),
  },
  {
    name: `${P}api_throttled_total`,
    help: '429 answers per remote, account and operation',
    type: 'counter',
    labels: ['remote', 'account', 'operation'],
    samples: (d) =>
      d.governors.map((g) => ({
        labels: { remote: g.remote, account: g.account, operation: g.operation },
        value: g.requests['429'],
      })),
  },
  {
    name: `${P}api_governor_wait_seconds_total`,
    help: 'Seconds requests waited on the rate governor',
    type: 'counter',
    labels: ['remote', 'account', 'operation'],
    samples: (d) =>
      d.governors.map((g) => ({
        labels: { remote: g.remote, account: g.account, operation: g.operation },
        value: g.waitedSeconds,
      })),
  },
  {
    name: `${P}api_governor_limit`,
    help: "The governor's learned limit (requests per window; mode: headers or fallback)",
    type: 'gauge',
    labels: ['remote', 'account', 'operation', 'mode'],
    samples: (d) =>
      d.governors.flatMap((g) =>
        g.limit === null
          ? []
          : [
              {
                labels: { remote: g.remote, account: g.account, operation: g.operation, mode: g.mode ?? 'unknown' },
                value: g.limit,
              },
            ],
      ),
  },
  {
    name: `${P}api_governor_window_seconds`,
    help: "The governor's learned window",
    type: 'gauge',
    labels: ['remote', 'account', 'operation'],
    samples: (d) =>
      d.governors.flatMap((g) =>
        g.windowMs === null
          ? []
          : [{ labels: { remote: g.remote, account: g.account, operation: g.operation }, value: g.windowMs / 1000 }],
      ),
  },
  {
    name: 'bullmq_job_count',
    help: 'BullMQ jobs per queue and state',
    type: 'gauge',
    labels: ['queue', 'state'],
    samples: (d) =>
      d.queues.flatMap((q) =>
        Object.entries(q.counts).map(([state, value]) => ({ labels: { queue: q.name, state }, value })),
      ),
  },
  {
    name: 'bullmq_job_completed_total',
    help: 'Jobs completed (BullMQ metrics, kept by the workers)',
    type: 'counter',
    labels: ['queue'],
    samples: (d) => d.queues.map((q) => ({ labels: { queue: q.name }, value: q.completedTotal })),
  },
  {
    name: 'bullmq_job_failed_total',
    help: 'Jobs failed for good (BullMQ metrics, kept by the workers)',
    type: 'counter',
    labels: ['queue'],
    samples: (d) => d.queues.map((q) => ({ labels: { queue: q.name }, value: q.failedTotal })),
  },
  {
    name: `${P}job_schedulers`,
    help: 'Job schedulers (scheduled saved searches) on the queue',
    type: 'gauge',
    labels: ['queue'],
    samples: (d) => d.queues.map((q) => ({ labels: { queue: q.name }, value: q.schedulers })),
  },
];

const DURATION = { name: `${P}run_duration_seconds`, help: 'Duration of finished runs' };
const REDIS_UP = { name: `${P}redis_up`, help: 'Whether Redis answered a PING (1) or not (0)' };

/** Every family /metrics serves besides prom-client's process metrics (the generated docs/reference/metrics.md). */
export function metricFamilies(): MetricFamily[] {
  return [
    ...FAMILIES.map(({ name, help, type, labels }) => ({ name, help, type, labels })),
    { ...DURATION, type: 'histogram', labels: ['search', 'destination'] },
    { ...REDIS_UP, type: 'gauge', labels: [] },
  ];
}

/** The run-duration histogram from the buckets kept in Redis (prom-client's Histogram can only observe). */
function durationHistogram(current: () => ScrapeData | undefined): Metric {
  const { name, help } = DURATION;
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    reset: () => undefined,
    get: async () => {
      const d = current();
      const values = (d?.searches ?? []).flatMap((s) => {
        const labels = searchLabels(s);
        const { duration } = s.totals;
        return [
          ...RUN_DURATION_BUCKETS_SECONDS.map((le) => ({
            metricName: `${name}_bucket`,
            labels: { ...labels, le },
            value: duration.buckets[String(le)] ?? 0,
          })),
          { metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: duration.count },
          { metricName: `${name}_sum`, labels, value: duration.sum },
          { metricName: `${name}_count`, labels, value: duration.count },
        ];
      });
      return { name, help, type: 'histogram', aggregator: 'sum', values };
    },
  };
  return metric as unknown as Metric;
}

export function createMetricsEndpoint(opts: MetricsOptions): MetricsEndpoint {
  const timeoutMs = opts.timeoutMs ?? 2_000;
  const base = new Registry();
  collectDefaultMetrics({ register: base });
  const redisUp = new Gauge({ ...REDIS_UP, registers: [base] });

  const data = new Registry();
  let current: ScrapeData | undefined;
  for (const f of FAMILIES) {
    const collect = function (this: Counter | Gauge): void {
      this.reset();
      if (!current) return;
      for (const s of f.samples(current)) {
        if (this instanceof Counter) this.inc(s.labels, s.value);
        else this.set(s.labels, s.value);
      }
    };
    const config = { name: f.name, help: f.help, labelNames: f.labels, registers: [data], collect };
    if (f.type === 'counter') new Counter(config);
    else new Gauge(config);
  }
  data.registerMetric(durationHistogram(() => current));
  const merged = Registry.merge([base, data]);

  // One scrape at a time: the families read the data of the scrape in progress.
  let queue: Promise<unknown> = Promise.resolve();
  const scrape = async (): Promise<{ status: number; body: string }> => {
    const up = await redisAnswers(opts.redis, timeoutMs);
    if (up) {
      try {
        current = await withDeadline(loadScrapeData(opts), timeoutMs * 2, 'redis (metrics)');
      } catch {
        current = undefined;
      }
    }
    redisUp.set(up && current ? 1 : 0);
    try {
      if (!current) return { status: 503, body: await base.metrics() };
      return { status: 200, body: await merged.metrics() };
    } finally {
      current = undefined;
    }
  };
  return {
    contentType: base.contentType,
    render() {
      const next = queue.then(scrape, scrape);
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
