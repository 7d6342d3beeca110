/** A contacts search over every person of the fixture's dataset (segment `key-accounts`, allowed by hubspotConfig). */
export function contactsSearch(name: string, fields = 'firstname: firstName, phone: contacts.phone'): string {
  return `
  - name: ${name}
    segment: key-accounts
    entity: persons
    filter: {company: {headcount: {gte: 1}}}
    view: [contacts]
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {${fields}}
`;
}
