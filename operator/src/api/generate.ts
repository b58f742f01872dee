import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { stringify } from 'yaml';
import { authConfigCrd, TYPE_NAMES } from './crd.ts';
import { emitTypes } from './typescript-emitter.ts';

/**
 * The files generated from the schema source (spec-schema.ts, status-schema.ts, cel-rules.ts): the CRD YAML
 * and the TypeScript types. `node operator/scripts/generate-crd.ts` writes them; a test fails when a
 * committed copy differs, so neither can drift from the source. Output is formatted with the repository's
 * prettier settings, so `prettier --check` agrees with the generator.
 */
export interface GeneratedFile {
  path: string;
  render(): Promise<string>;
}

const SOURCE = 'operator/src/api/{spec-schema,status-schema,cel-rules}.ts';

export const GENERATED_FILES: readonly GeneratedFile[] = [
  {
    path: fileURLToPath(new URL('../../deploy/crd.yaml', import.meta.url)),
    async render() {
      const header = `# Generated from ${SOURCE} by \`node operator/scripts/generate-crd.ts\`. Do not edit.\n`;
      return format(
        header + stringify(authConfigCrd, { lineWidth: 0, aliasDuplicateObjects: false }),
        this.path,
      );
    },
  },
  {
    path: fileURLToPath(new URL('./types.generated.ts', import.meta.url)),
    async render() {
      const header = `// Generated from ${SOURCE} by \`node operator/scripts/generate-crd.ts\`. Do not edit.\n\n`;
      return format(header + emitTypes(TYPE_NAMES) + '\n', this.path);
    },
  },
];

async function format(source: string, path: string): Promise<string> {
  const options = await prettier.resolveConfig(path);
  return prettier.format(source, { ...options, filepath: path });
}
