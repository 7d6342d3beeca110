/**
 * The naive way to do what prospect-sync does, as a baseline: one cursor journey walked page after page, each page
 * upserted into HubSpot with one batch call, a fixed sleep on any 429. undici for the API, the real
 * @hubspot/api-client for HubSpot. No partitions, no overlap of fetching and writing, no change detection.
 */
import { Client } from '@hubspot/api-client';
import { request } from 'undici';

export interface NaiveOptions {
  apiUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  hubspotUrl: string;
  hubspotToken: string;
  /** Sleep after a 429 from either side. */
  sleepOn429Ms?: number;
}

export interface NaiveResult {
  records: number;
  pages: number;
  seconds: number;
  api429: number;
  hubspot429: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function naiveSync(o: NaiveOptions): Promise<NaiveResult> {
  const sleepMs = o.sleepOn429Ms ?? 1000;
  const t0 = performance.now();
  const tokenRes = await request(o.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: o.clientId,
      client_secret: o.clientSecret,
    }).toString(),
  });
  const token = ((await tokenRes.body.json()) as { access_token: string }).access_token;
  const hubspot = new Client({ accessToken: o.hubspotToken, basePath: o.hubspotUrl });
  // The match property, created once like any integration would.
  await hubspot.crm.properties.coreApi.create('companies', {
    name: 'prospect_sync_id',
    label: 'prospect_sync_id',
    type: 'string' as never,
    fieldType: 'text' as never,
    groupName: 'companyinformation',
    hasUniqueValue: true,
  });
  let cursor: string | null = null;
  const r: NaiveResult = { records: 0, pages: 0, seconds: 0, api429: 0, hubspot429: 0 };
  do {
    const res = await request(
      `${o.apiUrl}/companies/filter?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      },
    );
    if (res.statusCode === 429) {
      await res.body.dump();
      r.api429++;
      await sleep(sleepMs);
      continue;
    }
    if (res.statusCode !== 200) throw new Error(`API answered ${res.statusCode}: ${await res.body.text()}`);
    const page = (await res.body.json()) as {
      data: { id: string; name?: string; domain?: string; headcount?: number }[];
      page: { nextCursor: string | null };
    };
    const inputs = page.data.map((c) => ({
      idProperty: 'prospect_sync_id',
      id: c.id,
      properties: {
        prospect_sync_id: c.id,
        name: c.name ?? '',
        domain: c.domain ?? '',
        numberofemployees: String(c.headcount ?? ''),
      },
    }));
    for (;;) {
      try {
        if (inputs.length > 0) await hubspot.crm.companies.batchApi.upsert({ inputs });
        break;
      } catch (err) {
        if ((err as { code?: number }).code !== 429) throw err;
        r.hubspot429++;
        await sleep(sleepMs);
      }
    }
    r.records += page.data.length;
    r.pages++;
    cursor = page.page.nextCursor;
  } while (cursor !== null);
  r.seconds = (performance.now() - t0) / 1000;
  return r;
}
