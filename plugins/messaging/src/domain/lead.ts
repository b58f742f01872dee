/** A lead's contact fields as stored: each one known, or null. */
export interface LeadContact {
  name: string | null;
  email: string | null;
  phone: string | null;
}

/**
 * A lead's status from its fields: `incomplete` while the name or the email is missing, `captured` with
 * both, `qualified` with a phone as well (plugins/messaging/README.md, "How a message flows", point 4). The
 * lead store's upsert applies the same rule in SQL; this copy tells the escalation rules, before anything
 * is written, what the lead becomes.
 */
export function leadStatus(lead: LeadContact): string {
  if (lead.name === null || lead.email === null) return 'incomplete';
  return lead.phone === null ? 'captured' : 'qualified';
}
