/**
 * Writes operator/deploy/crd.yaml and operator/src/api/types.generated.ts from the AuthConfig schema
 * source. Run after changing operator/src/api/{spec-schema,status-schema,cel-rules}.ts:
 *
 *   node operator/scripts/generate-crd.ts
 */
import { writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { GENERATED_FILES } from '../src/api/generate.ts';

for (const file of GENERATED_FILES) {
  await writeFile(file.path, await file.render());
  console.log(`wrote ${relative(process.cwd(), file.path)}`);
}
