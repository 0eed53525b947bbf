// Prints jest's JSON results (one file per jest run): the time each test tier took (docs/engineering.md,
// "Test tiers"), then the one closing line CI reads: `N passed, M failed`. A suite that failed to
// run at all counts as one failed test, and so does a run that left no results.
const fs = require('node:fs');

/** The tier of a test file, from where it lives (jest.config.js defines the same projects). */
function tierOf(file) {
  if (file.includes('/tests/integration/faults/')) return 'faults';
  if (file.includes('/tests/integration/')) return 'integration';
  if (file.includes('/tests/browser/')) return 'browser';
  return file.endsWith('.service.test.ts') ? 'service' : 'unit';
}

let passed = 0;
let failed = 0;
const tiers = new Map();
for (const file of process.argv.slice(2)) {
  if (!fs.existsSync(file)) {
    failed += 1;
    continue;
  }
  const r = JSON.parse(fs.readFileSync(file, 'utf8'));
  const brokenSuites = r.testResults.filter(
    (s) => s.status === 'failed' && s.assertionResults.length === 0,
  ).length;
  passed += r.numPassedTests;
  failed += r.numFailedTests + brokenSuites;
  for (const s of r.testResults) {
    const name = tierOf(s.name);
    const t = tiers.get(name) ?? { files: 0, tests: 0, fileSeconds: 0 };
    t.files += 1;
    t.tests += s.assertionResults.length;
    t.fileSeconds += Math.max(0, (s.endTime - s.startTime) / 1000);
    tiers.set(name, t);
  }
}
if (process.argv.length <= 2) failed += 1;
// Files of a tier run in parallel workers, so this is the sum of their durations, not wall time.
for (const [name, t] of [...tiers].sort()) {
  console.log(
    `tier ${name}: ${t.files} files, ${t.tests} tests, ${Math.round(t.fileSeconds)} s of test files`,
  );
}
console.log(`${passed} passed, ${failed} failed`);
