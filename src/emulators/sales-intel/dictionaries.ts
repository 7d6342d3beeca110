/** Dictionary values the filters accept (GET /dictionaries/{name}); order is the stored attribute code. */

export interface DictionaryEntry {
  value: string;
  label: string;
}

function entries(values: readonly string[]): DictionaryEntry[] {
  return values.map((value) => ({
    value,
    label: value.replace(/[_-]/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()),
  }));
}

export const INDUSTRIES = [
  'software',
  'it_services',
  'hardware',
  'semiconductors',
  'telecommunications',
  'internet',
  'financial_services',
  'banking',
  'insurance',
  'healthcare',
  'pharmaceuticals',
  'biotechnology',
  'medical_devices',
  'manufacturing',
  'automotive',
  'aerospace',
  'chemicals',
  'energy',
  'utilities',
  'construction',
  'real_estate',
  'retail',
  'ecommerce',
  'consumer_goods',
  'food_and_beverage',
  'logistics',
  'education',
  'media',
  'professional_services',
  'government',
] as const;

/** Country code → region value (index into REGIONS). */
export const COUNTRIES: readonly (readonly [string, string])[] = [
  ['US', 'north_america'],
  ['CA', 'north_america'],
  ['MX', 'latam'],
  ['BR', 'latam'],
  ['AR', 'latam'],
  ['GB', 'western_europe'],
  ['IE', 'western_europe'],
  ['FR', 'western_europe'],
  ['BE', 'western_europe'],
  ['NL', 'western_europe'],
  ['LU', 'western_europe'],
  ['DE', 'dach'],
  ['AT', 'dach'],
  ['CH', 'dach'],
  ['SE', 'nordics'],
  ['NO', 'nordics'],
  ['DK', 'nordics'],
  ['FI', 'nordics'],
  ['ES', 'southern_europe'],
  ['IT', 'southern_europe'],
  ['PT', 'southern_europe'],
  ['PL', 'eastern_europe'],
  ['CZ', 'eastern_europe'],
  ['RO', 'eastern_europe'],
  ['IL', 'middle_east_africa'],
  ['AE', 'middle_east_africa'],
  ['ZA', 'middle_east_africa'],
  ['JP', 'apac'],
  ['CN', 'apac'],
  ['IN', 'apac'],
  ['SG', 'apac'],
  ['AU', 'apac'],
  ['KR', 'apac'],
];

export const REGIONS = [
  'north_america',
  'latam',
  'western_europe',
  'dach',
  'nordics',
  'southern_europe',
  'eastern_europe',
  'middle_east_africa',
  'apac',
] as const;

export const DEPARTMENTS = [
  'engineering',
  'sales',
  'marketing',
  'finance',
  'human_resources',
  'operations',
  'it',
  'legal',
  'product',
  'customer_success',
  'executive',
  'research',
] as const;

export const SENIORITIES = ['owner', 'c_level', 'vp', 'director', 'manager', 'senior', 'entry', 'intern'] as const;

/** At most 32 (stored as a bitmask per company). */
export const TECHNOLOGIES = [
  'salesforce',
  'hubspot',
  'aws',
  'azure',
  'google_cloud',
  'kubernetes',
  'docker',
  'react',
  'angular',
  'vue',
  'node_js',
  'python',
  'java',
  'dotnet',
  'php',
  'ruby_on_rails',
  'postgresql',
  'mysql',
  'mongodb',
  'snowflake',
  'databricks',
  'shopify',
  'wordpress',
  'zendesk',
  'slack',
  'microsoft_365',
  'google_workspace',
  'sap',
] as const;

export type DictionaryName = 'industry' | 'country' | 'region' | 'department' | 'seniority' | 'technology';

export const DICTIONARIES: Record<DictionaryName, DictionaryEntry[]> = {
  industry: entries(INDUSTRIES),
  country: COUNTRIES.map(([value]) => ({ value, label: value })),
  region: entries(REGIONS),
  department: entries(DEPARTMENTS),
  seniority: entries(SENIORITIES),
  technology: entries(TECHNOLOGIES),
};

/** Value → code lookups used by filter validation. */
export const DICTIONARY_CODES: Record<DictionaryName, Map<string, number>> = Object.fromEntries(
  Object.entries(DICTIONARIES).map(([name, list]) => [name, new Map(list.map((e, i) => [e.value, i]))]),
) as Record<DictionaryName, Map<string, number>>;

export const COUNTRY_REGION_CODE: Uint8Array = Uint8Array.from(
  COUNTRIES.map(([, region]) => REGIONS.indexOf(region as (typeof REGIONS)[number])),
);
