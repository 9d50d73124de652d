-- iso8601() was declared IMMUTABLE, but to_char() is only STABLE, and PostgreSQL does not inline
-- a SQL function whose body is more volatile than its declaration: every call ran the SQL-function
-- executor. Declared STABLE (what it truly is) it inlines into the calling statement; the result
-- is unchanged. No index or constraint uses it, so IMMUTABLE bought nothing.
CREATE OR REPLACE FUNCTION iso8601(t timestamptz) RETURNS text
  LANGUAGE sql STABLE STRICT PARALLEL SAFE
  AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;
