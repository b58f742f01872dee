-- FAQ entries feed the knowledge base (plugins/messaging/README.md, "Knowledge base", "From the FAQ"): each
-- entry that was ever published has one document (source `faq`), published while the entry is published and
-- live, a draft otherwise. `faq_updated_at` is the entry's `updated_at` the document last took: a document
-- behind its entry is brought up to date in the same transaction as the entry's change.
ALTER TABLE messaging_kb_documents
  ADD COLUMN faq_entry_id uuid UNIQUE REFERENCES messaging_faq_entries (id),
  ADD COLUMN faq_updated_at timestamptz;
