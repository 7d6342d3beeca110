/** ${VAR} / ${VAR:-default} / $$ / VAR_FILE interpolation, and secrets only from the environment, never echoed. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { interpolate } from '../../src/config/interpolate.js';
import { SECRETS, fixtureEnv, parseError } from './config-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'ps-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A small valid config whose source section is `sourceLines` (already indented by two spaces). */
function config(sourceLines: string, extra = ''): string {
  return [
    'source:',
    sourceLines,
    'destinations:',
    '  crm: {type: hubspot, accessToken: "${HUBSPOT_TOKEN}"}',
    extra,
    'searches:',
    '  - {name: s1, segment: a, entity: companies, filter: {}, destination: crm, object: companies,',
    '     matchOn: {field: k, from: id}, fields: {name: name}}',
    '',
  ].join('\n');
}

const SOURCE = [
  '  baseUrl: ${SI_BASE_URL:-http://127.0.0.1:4010}',
  '  auth: {tokenUrl: "${SI_BASE_URL:-http://127.0.0.1:4010}/oauth/token", clientId: demo, clientSecret: ' +
    '"${SI_CLIENT_SECRET}"}',
].join('\n');

describe('interpolate()', () => {
  it('substitutes variables, defaults and $$', () => {
    const env = { A: 'alpha', EMPTY: '' };
    expect(interpolate('x-${A}-y', env)).toMatchObject({ ok: true, value: 'x-alpha-y', wholeValueIsVariable: false });
    expect(interpolate('${A}', env)).toMatchObject({
      ok: true,
      value: 'alpha',
      wholeValueIsVariable: true,
      variable: 'A',
    });
    expect(interpolate('x-${A}-y', env)).not.toHaveProperty('variable');
    expect(interpolate('${B:-beta}', env)).toMatchObject({ ok: true, value: 'beta' });
    expect(interpolate('${EMPTY:-fallback}', env)).toMatchObject({ ok: true, value: 'fallback' });
    expect(interpolate('${EMPTY}', env)).toMatchObject({ ok: true, value: '' });
    expect(interpolate('${B:-}', env)).toMatchObject({ ok: true, value: '' });
    expect(interpolate('cost $$5 and $${A} and $ alone', env)).toMatchObject({
      ok: true,
      value: 'cost $5 and ${A} and $ alone',
      usedVariable: false,
    });
    expect(interpolate('${A', env)).toMatchObject({ ok: false });
    expect(interpolate('${B}', env)).toEqual({
      ok: false,
      message: 'environment variable B is not set (nor B_FILE)',
      unsetVariable: 'B',
    });
  });

  it('reads NAME_FILE (trimmed) when NAME is unset, before the default', () => {
    const file = join(dir, 'secret.txt');
    writeFileSync(file, '  from-file-value\n');
    expect(interpolate('${S:-dflt}', { S_FILE: file })).toMatchObject({ ok: true, value: 'from-file-value' });
    expect(interpolate('${S}', { S: 'direct', S_FILE: file })).toMatchObject({ ok: true, value: 'direct' });
    const missing = interpolate('${S}', { S_FILE: join(dir, 'absent') });
    expect(missing).toEqual({ ok: false, message: 'cannot read the file named by environment variable S_FILE' });
  });
});

describe('interpolation in a config', () => {
  it('applies defaults and retypes plain scalars, keeps quoted ones strings', () => {
    const text = config(
      SOURCE + '\n  pageSize: ${PAGE_SIZE:-50}\n  idField: "${ID_FIELD:-42}"',
      'server:\n  port: ${PORT:-8080}',
    );
    const { config: loaded } = parseConfig(text, 'x.yaml', fixtureEnv({ PORT: '9123' }));
    expect(loaded.source.baseUrl).toBe('http://127.0.0.1:4010');
    expect(loaded.source.auth.tokenUrl).toBe('http://127.0.0.1:4010/oauth/token');
    expect(loaded.source.pageSize).toBe(50);
    expect(loaded.source.idField).toBe('42');
    expect(loaded.server.port).toBe(9123);
    expect(loaded.source.auth.clientSecret).toBe(SECRETS.SI_CLIENT_SECRET);
  });

  it('takes secrets from VAR_FILE when VAR is unset', () => {
    const file = join(dir, 'si-secret');
    writeFileSync(file, 'file-secret-99\n');
    const env = fixtureEnv();
    delete env.SI_CLIENT_SECRET;
    env.SI_CLIENT_SECRET_FILE = file;
    expect(parseConfig(config(SOURCE), 'x.yaml', env).config.source.auth.clientSecret).toBe('file-secret-99');
  });

  it('names the missing variable and its line, never a value', () => {
    const env = fixtureEnv();
    delete env.HUBSPOT_TOKEN;
    const error = parseError(config(SOURCE), env);
    expect(error.issues).toEqual([
      expect.objectContaining({
        line: 5,
        path: 'destinations.crm.accessToken',
        message: 'environment variable HUBSPOT_TOKEN is not set (nor HUBSPOT_TOKEN_FILE)',
      }),
    ]);
  });

  it('refuses literal secrets without echoing them, and never echoes a secret read from the environment', () => {
    const literal = SOURCE.replace('"${SI_CLIENT_SECRET}"', 'literal-s3cret-value');
    const error = parseError(config(literal), fixtureEnv());
    expect(error.issues[0]).toMatchObject({ line: 3, path: 'source.auth.clientSecret' });
    expect(error.message).not.toContain('literal-s3cret-value');

    // A secret that is present but wrong in type or place: the message still must not carry it.
    const misplaced = config(SOURCE + '\n  idField: ${SI_CLIENT_SECRET}\n  pageSize: ${SI_CLIENT_SECRET}');
    const second = parseError(misplaced, fixtureEnv());
    expect(second.issues.map((i) => i.path)).toEqual(['source.pageSize']);
    expect(JSON.stringify(second.toJSON())).not.toContain(SECRETS.SI_CLIENT_SECRET);
  });

  it('a variable cannot inject structure', () => {
    const env = fixtureEnv({ SI_BASE_URL: 'http://127.0.0.1:1\nauth: {}' });
    const error = parseError(config(SOURCE), env);
    expect(error.issues.map((i) => i.path)).toEqual(['source.baseUrl', 'source.auth.tokenUrl']);
  });
});
