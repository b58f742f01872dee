-- The knowledge base (plugins/messaging/README.md, "Knowledge base"): documents admins write or import, the
-- versions an edit keeps, the chunks retrieval searches (only those of published documents), a version number
-- of what is published, the imports, and which chunks each bot answer used.

CREATE EXTENSION IF NOT EXISTS unaccent;

-- Indonesian has no snowball stemmer in PostgreSQL: its words are kept as they are, lower-cased and without
-- accents (so "kuliah" and "kúliah" meet). Stop words are left out of queries by the retrieval code.
CREATE TEXT SEARCH CONFIGURATION messaging_kb_id (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION messaging_kb_id
  ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH unaccent, simple;

-- Documents. `version` counts edits (the ETag of If-Match); `archived` is the soft delete.
CREATE TABLE messaging_kb_documents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 100000),
  language text NOT NULL CHECK (language IN ('id', 'en')),
  tags text[] NOT NULL DEFAULT '{}' CHECK (cardinality(tags) <= 20),
  source text NOT NULL CHECK (source IN ('manual', 'faq', 'import')),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'archived')),
  version integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  import_id uuid,
  created_by text NOT NULL CHECK (length(created_by) BETWEEN 1 AND 200),
  updated_by text NOT NULL CHECK (length(updated_by) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  published_at timestamptz
);
-- The list's order (newest change first, id as the tie-breaker) and its filters.
CREATE INDEX messaging_kb_documents_list ON messaging_kb_documents (updated_at DESC, id DESC);
CREATE INDEX messaging_kb_documents_tags ON messaging_kb_documents USING gin (tags);
CREATE INDEX messaging_kb_documents_source ON messaging_kb_documents (source, status);

-- Every earlier version of a document, as it was before an edit replaced it.
CREATE TABLE messaging_kb_document_versions (
  document_id uuid NOT NULL REFERENCES messaging_kb_documents (id) ON DELETE CASCADE,
  version integer NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  language text NOT NULL,
  tags text[] NOT NULL,
  status text NOT NULL,
  saved_by text NOT NULL,
  saved_at timestamptz NOT NULL,
  PRIMARY KEY (document_id, version)
);

-- The searchable pieces of published documents: written when a document is published (or a published one
-- edited), removed when it stops being published. `tsv` is built with the document language's configuration;
-- heading words weigh more than body words.
CREATE TABLE messaging_kb_chunks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  document_id uuid NOT NULL REFERENCES messaging_kb_documents (id) ON DELETE CASCADE,
  ord integer NOT NULL,
  language text NOT NULL CHECK (language IN ('id', 'en')),
  title text NOT NULL,
  heading text NOT NULL,
  text text NOT NULL,
  tsv tsvector NOT NULL,
  UNIQUE (document_id, ord)
);

-- One row per word (lexeme) of a chunk: where retrieval finds its candidates (README, "Knowledge base",
-- "Retrieval"). `weight` says how much the chunk is about the word: heading and title occurrences count 1,
-- body ones 0.5, over the log of the chunk's number of distinct words (a short chunk about it beats a long
-- one mentioning it). For each word of a question retrieval reads only that word's best rows, so its cost
-- stays bounded however many chunks share a common word.
CREATE TABLE messaging_kb_postings (
  chunk_id uuid NOT NULL REFERENCES messaging_kb_chunks (id) ON DELETE CASCADE,
  language text NOT NULL,
  lexeme text NOT NULL,
  weight real NOT NULL
);
CREATE INDEX messaging_kb_postings_lexeme ON messaging_kb_postings (language, lexeme, weight DESC) INCLUDE (chunk_id);
CREATE INDEX messaging_kb_postings_chunk ON messaging_kb_postings (chunk_id);

-- Every word published documents have used (lower case, no accents, 3-40 letters or digits), for correcting a
-- misspelt word of a short question to the nearest words by trigram similarity. Words are added, never
-- removed: a word no chunk holds any more just finds nothing. GiST: the nearest words come from an ordered
-- walk of the index (ORDER BY <-> LIMIT), where GIN would compare the term with every word sharing a trigram.
CREATE TABLE messaging_kb_words (
  language text NOT NULL,
  word text NOT NULL,
  PRIMARY KEY (language, word)
);
CREATE INDEX messaging_kb_words_trgm ON messaging_kb_words USING gist (word gist_trgm_ops);

-- The KB version: one more on every change to what is published (evaluation runs name the one they ran
-- against; each bot answer names the one it answered from).
CREATE TABLE messaging_kb_state (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version bigint NOT NULL DEFAULT 0
);
INSERT INTO messaging_kb_state DEFAULT VALUES;

-- File imports: one row per import, its items' outcomes (document id or error) in `items`.
CREATE TABLE messaging_kb_imports (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  item_count integer NOT NULL,
  imported_count integer NOT NULL,
  error_count integer NOT NULL,
  items jsonb NOT NULL
);
CREATE INDEX messaging_kb_imports_created ON messaging_kb_imports (created_at DESC);
ALTER TABLE messaging_kb_documents
  ADD FOREIGN KEY (import_id) REFERENCES messaging_kb_imports (id) ON DELETE SET NULL;

-- What the knowledge base gave each generalInfo message the bot answered: the chunks retrieval found (best
-- first) with their scores, whether the best passed the answer threshold, and the KB version. A message
-- with `answered = false` fell back to the default answer.
CREATE TABLE messaging_kb_answers (
  message_id uuid PRIMARY KEY REFERENCES messaging_messages (id) ON DELETE CASCADE,
  answered boolean NOT NULL,
  chunk_ids uuid[] NOT NULL,
  scores real[] NOT NULL,
  kb_version bigint NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX messaging_kb_answers_created ON messaging_kb_answers (created_at DESC);
