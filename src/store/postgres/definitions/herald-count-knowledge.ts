import type { Definition } from './definition.js';

export const heraldCountKnowledge: Definition = {
  name: 'herald_count_knowledge',
  sql: `
    -- knowledge: documents, and their chunks by the documents' chunk_count
    CREATE FUNCTION herald_count_knowledge() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM herald_count('knowledge:documents', 1);
        PERFORM herald_count('knowledge:chunks', NEW.chunk_count);
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM herald_count('knowledge:documents', -1);
        PERFORM herald_count('knowledge:chunks', -OLD.chunk_count);
      ELSIF OLD.chunk_count <> NEW.chunk_count THEN
        PERFORM herald_count('knowledge:chunks', NEW.chunk_count - OLD.chunk_count);
      END IF;
      RETURN NULL;
    END $$;
  `,
};
