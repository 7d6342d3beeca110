/** The config and environment the CLI tests start the CLI with (test/queue/cli-process.ts starts it). */
export const CONFIG_ENV = {
  SI_CLIENT_SECRET: 'test-si-secret',
  HUBSPOT_TOKEN: 'test-hubspot-token',
  LOG_LEVEL: 'warn',
};

/** A minimal valid config; `searches` is the YAML list under `searches:`. */
export function configYaml(searches: string): string {
  return `source:
  baseUrl: http://127.0.0.1:9/api
  auth:
    tokenUrl: http://127.0.0.1:9/oauth/token
    clientId: demo-client
    clientSecret: \${SI_CLIENT_SECRET}
destinations:
  crm:
    type: hubspot
    accessToken: \${HUBSPOT_TOKEN}
    baseUrl: http://127.0.0.1:9
server:
  port: 0
searches:
${searches}`;
}

export function searchYaml(name: string, schedule: string): string {
  return `  - name: ${name}
    segment: icp
    entity: companies
    filter: {company: {industry: {include: [software]}}}
    schedule: ${schedule}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields: {name: name}
`;
}
