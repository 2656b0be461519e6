import fs from 'node:fs';
import { MANIFEST } from '../../scripts/test-tools';

/**
 * A program `npm run test:tools` got for the tests (scripts/test-tools.ts), or undefined when this
 * machine could not get it. A test that needs one calls `describeWithTool`, which skips, saying how
 * to get it, only where the tool is missing and CI did not require it (CI fails earlier instead).
 */
export function testTool(name: string): Record<string, string> | undefined {
  if (!fs.existsSync(MANIFEST)) return undefined;
  return (JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as Record<string, Record<string, string>>)[name];
}

export function describeWithTool(tool: string, title: string, body: (paths: Record<string, string>) => void): void {
  const paths = testTool(tool);
  if (paths) {
    describe(title, () => body(paths));
    return;
  }
  if (process.env.REQUIRE_TEST_TOOLS === '1') throw new Error(`${tool} is required (REQUIRE_TEST_TOOLS=1) but npm run test:tools could not get it`);
  console.warn(`${title}: skipped, ${tool} is not installed (npm run test:tools says how to get it)`);
  describe.skip(title, () => body({}));
}
