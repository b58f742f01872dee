import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { FollowUpKind, RuleInput } from '../domain/follow-up-schemas.ts';

/** A follow-up rule as stored. */
export interface RuleRow {
  id: string;
  kind: FollowUpKind;
  delayHours: number;
  text: string | null;
  templateName: string | null;
  templateLanguage: string | null;
  templateParameters: string[];
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, kind, delay_hours AS "delayHours", text, template_name AS "templateName",
  template_language AS "templateLanguage", template_parameters AS "templateParameters", enabled,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

const values = (input: RuleInput) => [
  input.kind,
  input.delayHours,
  input.text,
  input.template?.name ?? null,
  input.template?.languageCode ?? null,
  input.template?.parameters ?? [],
  input.enabled,
];

/** Follow-up rules (README, "Follow-ups"): an admin's CRUD. */
export const followUpRuleStore = {
  async list(db: Queryable): Promise<RuleRow[]> {
    const { rows } = await db.query<RuleRow>(
      `SELECT ${COLUMNS} FROM messaging_follow_up_rules ORDER BY created_at, id`,
    );
    return rows;
  },

  async get(db: Queryable, id: string, lock = false): Promise<RuleRow | null> {
    const { rows } = await db.query<RuleRow>(
      `SELECT ${COLUMNS} FROM messaging_follow_up_rules WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  },

  async insert(db: Queryable, input: RuleInput, at: Date): Promise<RuleRow> {
    const { rows } = await db.query<RuleRow>(
      `INSERT INTO messaging_follow_up_rules (kind, delay_hours, text, template_name, template_language,
         template_parameters, enabled, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${COLUMNS}`,
      [...values(input), at],
    );
    return rows[0] as RuleRow;
  },

  async replace(db: Queryable, id: string, input: RuleInput, at: Date): Promise<RuleRow> {
    const { rows } = await db.query<RuleRow>(
      `UPDATE messaging_follow_up_rules
          SET kind = $2, delay_hours = $3, text = $4, template_name = $5, template_language = $6,
              template_parameters = $7, enabled = $8, updated_at = $9
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, ...values(input), at],
    );
    return rows[0] as RuleRow;
  },

  async delete(db: Queryable, id: string): Promise<void> {
    await db.query('DELETE FROM messaging_follow_up_rules WHERE id = $1', [id]);
  },
};
