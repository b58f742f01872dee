-- Account emails in their canonical form, compared exactly (docs/adr/0008-canonical-email.md): NFKC, lower
-- case, printable ASCII. Until now they were stored as typed and matched with lower(), which follows the
-- database's locale and disagreed with the gateway's own folding.
--
-- lower() runs under the "C" collation, where it maps A-Z only, whatever the database's locale (a Turkish
-- one maps I to a dotless ı). A stored value whose NFKC form is printable ASCII becomes that form, lower-
-- cased: the same as the gateway's canonicalEmail() for it. When several rows fold to one address, the row
-- already canonical keeps it, else one typed in ASCII (the spelling its owner signs in with), else the
-- oldest; the others, and values with no canonical form, stay as they are: no sign-in can name them any
-- more (it only asks for canonical forms), and an admin still sees them.
DROP INDEX auth_users_email_key;

WITH folded AS (
  SELECT id, email, created_at, lower(normalize(email, NFKC) COLLATE "C") AS canonical FROM auth_users
), chosen AS (
  SELECT DISTINCT ON (canonical) id, canonical
    FROM folded
   WHERE canonical ~ '^[!-~]+$'
   ORDER BY canonical, (email = canonical) DESC, (email ~ '^[ -~]+$') DESC, created_at, id
)
UPDATE auth_users u SET email = chosen.canonical, updated_at = now()
  FROM chosen
 WHERE u.id = chosen.id AND u.email <> chosen.canonical;

DO $$
DECLARE left_over integer;
BEGIN
  SELECT count(*) INTO left_over FROM auth_users WHERE email !~ '^[!-~]+$' OR email <> lower(email COLLATE "C");
  IF left_over > 0 THEN
    RAISE WARNING 'auth: % account email(s) have no canonical form of their own and can no longer sign in', left_over;
  END IF;
END $$;

-- Exact and unique: the index serves the sign-in lookup, and decides between concurrent creations.
CREATE UNIQUE INDEX auth_users_email_key ON auth_users (email);
