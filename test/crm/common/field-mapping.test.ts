import { describe, expect, it } from 'vitest';
import {
  applyTransform,
  compileFieldMapping,
  mapRecord,
  TRANSFORMS,
  type FieldMappingConfig,
} from '../../../src/crm/index.js';

const info = { object: 'contacts', associate: { object: 'companies', matchField: 'ext_id' } };

describe('field mapping', () => {
  it('maps dot paths (a.b, a.0.b) without knowing any record field name', () => {
    const config: FieldMappingConfig = {
      matchOn: { field: 'ext_id', from: 'ids.0.value' },
      fields: { city: 'where.city', school: 'education.1.school', tags: 'tags', missing: 'nowhere.at.all' },
      associate: { company: { from: 'employer.ref' } },
    };
    const mapping = compileFieldMapping(config, info);
    expect(mapping.target).toEqual({
      object: 'contacts',
      matchField: 'ext_id',
      fields: ['city', 'school', 'tags', 'missing'],
      associate: info.associate,
    });
    const out = mapRecord(mapping, {
      ids: [{ value: 'x-1' }],
      where: { city: 'Zürich' },
      education: [{ school: 'A' }, { school: 'École 𝔅' }],
      tags: ['a', 'b', null, ''],
      employer: { ref: 77 },
    });
    expect(out).toEqual({
      ok: true,
      record: { key: 'x-1', companyKey: '77', properties: { city: 'Zürich', school: 'École 𝔅', tags: 'a, b' } },
    });
  });

  it('applies every transform (each one in TRANSFORMS is exercised here)', () => {
    const seen = new Set<string>();
    const t = (name: (typeof TRANSFORMS)[number], value: unknown): unknown => {
      seen.add(name);
      return applyTransform(name, value);
    };
    expect(t('string', 12)).toBe('12');
    expect(t('number', ' 12.5 ')).toBe(12.5);
    expect(t('lowercase', 'ÄBC')).toBe('äbc');
    expect(t('uppercase', 'straße')).toBe('STRASSE');
    expect(t('trim', '  x \n')).toBe('x');
    expect(t('join', ['x', 3, { a: 1 }])).toBe('x, 3, {"a":1}');
    expect(t('first', ['q', 'r'])).toBe('q');
    expect(t('domain', 'https://www.Example.co.uk/path?q=1')).toBe('example.co.uk');
    expect(t('domain', 'bücher.de')).toBe('xn--bcher-kva.de');
    expect(t('date', '2024-03-05T22:10:00Z')).toBe('2024-03-05');
    expect(t('date', 0)).toBe('1970-01-01');
    expect(applyTransform(undefined, { a: 1 })).toBe('{"a":1}');
    expect(applyTransform(undefined, true)).toBe(true);
    expect(t('trim', '   ')).toBeUndefined();
    expect(t('first', [])).toBeUndefined();
    expect([...seen].sort()).toEqual([...TRANSFORMS].sort());
  });

  it('rejects one record whose value a transform cannot convert, with a reason and its key', () => {
    const mapping = compileFieldMapping(
      { matchOn: { field: 'ext_id', from: 'id' }, fields: { n: { from: 'size', transform: 'number' } } },
      { object: 'companies' },
    );
    expect(mapRecord(mapping, { id: 'c1', size: 'lots' })).toMatchObject({
      ok: false,
      key: 'c1',
      code: 'transform_failed',
    });
    expect(mapRecord(mapping, { id: 'c1', size: 'lots' })).not.toHaveProperty(
      'reason',
      expect.stringContaining('lots') as unknown,
    );
    expect(mapRecord(mapping, { size: 3 })).toMatchObject({ ok: false, key: undefined, code: 'missing_match_key' });
    expect(mapRecord(mapping, { id: '   ' })).toMatchObject({ ok: false, code: 'missing_match_key' });
  });

  it('writes constants ({value}) to every record, beside paths, and refuses a constant that is no scalar', () => {
    const mapping = compileFieldMapping(
      {
        matchOn: { field: 'ext_id', from: 'id' },
        fields: {
          Company: { value: 'Unknown', overwrite: 'never' },
          Score: { value: 7 },
          OptIn: { value: false },
          LastName: 'last',
        },
      },
      { object: 'Lead' },
    );
    expect(mapping.target.fields).toEqual(['Company', 'Score', 'OptIn', 'LastName']);
    expect(mapping.fields[0]).toMatchObject({ field: 'Company', constant: 'Unknown', overwrite: 'never' });
    expect(mapRecord(mapping, { id: 'p1', last: 'Roe' })).toEqual({
      ok: true,
      record: { key: 'p1', properties: { Company: 'Unknown', Score: 7, OptIn: false, LastName: 'Roe' } },
    });
    expect(mapRecord(mapping, { id: 'p2' })).toEqual({
      ok: true,
      record: { key: 'p2', properties: { Company: 'Unknown', Score: 7, OptIn: false } },
    });
    expect(() =>
      compileFieldMapping(
        { matchOn: { field: 'ext_id', from: 'id' }, fields: { Score: { value: Number.NaN } } },
        { object: 'Lead' },
      ),
    ).toThrow(/fields\.Score\.value: a constant is a string, a finite number or a boolean/);
  });

  it('does not reach prototype properties through paths', () => {
    const mapping = compileFieldMapping(
      { matchOn: { field: 'ext_id', from: 'id' }, fields: { a: 'constructor', b: '__proto__.x' } },
      { object: 'companies' },
    );
    expect(mapRecord(mapping, { id: 'c' })).toEqual({ ok: true, record: { key: 'c', properties: {} } });
  });

  it('refuses bad configs with a typed error naming the field', () => {
    const bad = (config: FieldMappingConfig, object = info): unknown => {
      try {
        compileFieldMapping(config, object);
      } catch (err) {
        return err;
      }
      return undefined;
    };
    expect(
      bad({ matchOn: { field: 'e', from: 'id' }, fields: { x: { from: 'a', transform: 'reverse' } } }),
    ).toMatchObject({ code: 'crm_mapping_invalid', message: expect.stringContaining('fields.x') as unknown });
    expect(bad({ matchOn: { field: 'e', from: 'id' }, fields: { x: 'a..b' } })).toMatchObject({
      code: 'crm_mapping_invalid',
    });
    expect(bad({ matchOn: { field: 'e', from: 'id' }, fields: { e: 'id' } })).toMatchObject({
      code: 'crm_mapping_invalid',
    });
    expect(
      bad({ matchOn: { field: 'e', from: 'id' }, fields: {}, associate: { company: { from: 'c' } } }, {
        object: 'companies',
      } as typeof info),
    ).toMatchObject({ code: 'crm_mapping_invalid' });
  });
});
