/** The sObject schema the Salesforce emulator serves through describe and enforces on every write. */
export type SfFieldType =
  | 'id'
  | 'string'
  | 'email'
  | 'phone'
  | 'url'
  | 'textarea'
  | 'int'
  | 'double'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'reference';

export interface SfField {
  name: string;
  type: SfFieldType;
  /** Maximum length for text types. */
  length?: number;
  externalId?: boolean;
  unique?: boolean;
  /** Required on create (the REQUIRED_FIELD_MISSING check): describe says `nillable: false`. */
  required?: boolean;
  /**
   * Salesforce fills the field when a create leaves it out (describe `defaultedOnCreate`; ids and checkboxes always).
   */
  defaultedOnCreate?: boolean;
  /** Set only by Salesforce (describe `createable: false`, `updateable: false`); ids always. */
  readOnly?: boolean;
  /** Reference fields: the parent object and the relationship name used for nested external-id references. */
  referenceTo?: string;
  relationshipName?: string;
  /** Present only while this org setting is on (describe, SOQL and writes alike), e.g. CampaignMember.AccountId. */
  orgSetting?: OrgSetting;
  /** Deleting the parent deletes the records pointing at it (Salesforce deletes an Account's Contacts with it). */
  cascadeDelete?: boolean;
}

/** Org settings that change the schema the org serves. */
export type OrgSetting = 'accountsAsCampaignMembers';

export interface SfObject {
  name: string;
  /** The 3-character key prefix of record ids (001 Account, 003 Contact, 00Q Lead). */
  keyPrefix: string;
  fields: SfField[];
}

export type SfSchema = Record<string, SfObject>;

const text = (name: string, length = 255, extra: Partial<SfField> = {}): SfField => ({
  name,
  type: 'string',
  length,
  ...extra,
});
const externalIdField = (name: string): SfField => ({
  name,
  type: 'string',
  length: 255,
  externalId: true,
  unique: true,
});
const idField: SfField = { name: 'Id', type: 'id', length: 18 };

const reference = (
  name: string,
  referenceTo: string,
  relationshipName: string,
  extra: Partial<SfField> = {},
): SfField => ({ name, type: 'reference', length: 18, referenceTo, relationshipName, ...extra });

/**
 * A small but realistic default org: Account, Contact and Lead, each with the external id `Prospect_Sync_Id__c`, and
 * Campaign / CampaignMember (Campaign names are not unique; a member links a campaign to a Contact or Lead, or to an
 * Account where "Accounts as Campaign Members" is on).
 */
export function defaultSchema(): SfSchema {
  return {
    Account: {
      name: 'Account',
      keyPrefix: '001',
      fields: [
        idField,
        text('Name', 255, { required: true }),
        { name: 'Website', type: 'url', length: 255 },
        text('Industry', 255),
        { name: 'NumberOfEmployees', type: 'int' },
        { name: 'AnnualRevenue', type: 'double' },
        text('BillingCity', 40),
        text('BillingCountry', 80),
        { name: 'Phone', type: 'phone', length: 40 },
        { name: 'Description', type: 'textarea', length: 32000 },
        externalIdField('Prospect_Sync_Id__c'),
      ],
    },
    Contact: {
      name: 'Contact',
      keyPrefix: '003',
      fields: [
        idField,
        text('FirstName', 40),
        text('LastName', 80, { required: true }),
        text('Title', 128),
        { name: 'Email', type: 'email', length: 80 },
        { name: 'Phone', type: 'phone', length: 40 },
        { name: 'HasOptedOutOfEmail', type: 'boolean' },
        { name: 'DoNotCall', type: 'boolean' },
        {
          name: 'AccountId',
          type: 'reference',
          length: 18,
          referenceTo: 'Account',
          relationshipName: 'Account',
          cascadeDelete: true,
        },
        externalIdField('Prospect_Sync_Id__c'),
      ],
    },
    Lead: {
      name: 'Lead',
      keyPrefix: '00Q',
      fields: [
        idField,
        text('FirstName', 40),
        text('LastName', 80, { required: true }),
        text('Company', 255, { required: true }),
        text('Title', 128),
        { name: 'Email', type: 'email', length: 80 },
        { name: 'Phone', type: 'phone', length: 40 },
        text('Industry', 255),
        { name: 'HasOptedOutOfEmail', type: 'boolean' },
        { name: 'DoNotCall', type: 'boolean' },
        externalIdField('Prospect_Sync_Id__c'),
      ],
    },
    Campaign: {
      name: 'Campaign',
      keyPrefix: '701',
      fields: [
        idField,
        text('Name', 80, { required: true }),
        { name: 'IsActive', type: 'boolean' },
        { name: 'Description', type: 'textarea', length: 32000 },
      ],
    },
    CampaignMember: {
      name: 'CampaignMember',
      keyPrefix: '00v',
      fields: [
        // A member goes with its campaign and with the record it links.
        idField,
        reference('CampaignId', 'Campaign', 'Campaign', { required: true, cascadeDelete: true }),
        reference('ContactId', 'Contact', 'Contact', { cascadeDelete: true }),
        reference('LeadId', 'Lead', 'Lead', { cascadeDelete: true }),
        reference('AccountId', 'Account', 'Account', { orgSetting: 'accountsAsCampaignMembers', cascadeDelete: true }),
        text('Status', 40, { defaultedOnCreate: true }),
      ],
    },
  };
}

export function findField(object: SfObject, name: string): SfField | undefined {
  const lower = name.toLowerCase();
  return object.fields.find((f) => f.name.toLowerCase() === lower);
}
