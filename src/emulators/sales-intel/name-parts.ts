/** Word lists for synthetic names; some deliberately carry odd Unicode (accents, CJK, emoji, RTL). */
import { DEPARTMENTS, SENIORITIES } from './dictionaries.js';

export const FIRST_NAMES = [
  'Anna', 'Ben', 'Clara', 'David', 'Elif', 'Farid', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Kai', 'Lena', 'Mateo',
  'Nora', 'Oskar', 'Paula', 'Quentin', 'Rosa', 'Sven', 'Tanja', 'Ulrich', 'Vera', 'Wei', 'Xenia', 'Yusuf', 'Zoë',
  'José', 'François', 'Søren', 'Łukasz', 'Björk', 'Çağla', '翔太', '美咲', 'محمد', 'שרה', 'Ана', 'Δημήτρης',
];

export const LAST_NAMES = [
  'Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Smith', 'Johnson', 'Brown',
  'Garcia', 'Martin', 'Bernard', 'Dubois', 'Rossi', 'Novák', 'Kowalski', 'Nielsen', 'Andersson', "O'Brien",
  'van der Berg', 'Núñez', 'Ødegård', '山田', '王', '김', 'الحسن', 'כהן', 'Иванов', 'Straße-Weiß',
];

export const COMPANY_WORDS = [
  'Acme', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Hooli', 'Vandelay', 'Nordwind', 'Alpen', 'Bärenfels',
  'Crème', 'Øresund', 'Zürich', 'Kōgyō', '東京', '星辰', 'Rocket 🚀', 'Blue ✨', 'الفجر', 'אור', 'Żuraw', 'Ñandú',
  'Lumen', 'Vertex', 'Quanta', 'Helix', 'Nimbus', 'Orbit', 'Pixel', 'Atlas', 'Cobalt',
];

export const COMPANY_SUFFIXES = ['GmbH', 'AG', 'Inc.', 'Ltd', 'SAS', 'S.p.A.', 'BV', 'AB', 'Co.', 'KK', 'Group', 'Labs'];

const SENIORITY_PREFIX: Record<(typeof SENIORITIES)[number], readonly [string, string]> = {
  owner: ['Founder', 'Owner'],
  c_level: ['Chief', 'Chief'],
  vp: ['VP', 'Vice President'],
  director: ['Director', 'Head'],
  manager: ['Manager', 'Team Lead'],
  senior: ['Senior', 'Lead'],
  entry: ['Associate', 'Junior'],
  intern: ['Intern', 'Working Student'],
};

export const TITLE_VARIANTS = 2;

/** Title code = (seniority * departments + department) * variants + variant. */
export const JOB_TITLES: string[] = SENIORITIES.flatMap((s) =>
  DEPARTMENTS.flatMap((d) => {
    const dept = d.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
    return SENIORITY_PREFIX[s].map((p, v) => (v === 0 ? `${p} ${dept}` : `${p} of ${dept}`));
  }),
);

export const SCHOOLS = ['TU München', 'ETH Zürich', 'MIT', 'Sorbonne', 'Universidad de Chile', '東京大学', 'Uppsala universitet'];
export const DEGREES = ['BSc', 'MSc', 'MBA', 'PhD', 'BA'];
export const CITIES = ['Berlin', 'München', 'Wien', 'Zürich', 'New York', 'London', 'Paris', 'São Paulo', '東京', 'Tel Aviv'];
export const TIME_ZONES = ['Europe/Berlin', 'Europe/Vienna', 'Europe/Zurich', 'America/New_York', 'Europe/London', 'Asia/Tokyo'];
export const LANGUAGES = ['de', 'en', 'fr', 'es', 'it', 'ja', 'zh', 'ar', 'he'];
export const SKILLS = ['negotiation', 'sql', 'python', 'leadership', 'forecasting', 'crm', 'seo', 'kubernetes', 'budgeting', 'recruiting'];
