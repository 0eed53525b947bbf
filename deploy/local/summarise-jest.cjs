// Prints jest's JSON results (one file per jest run) as the one closing line CI reads:
// `N passed, M failed`. A suite that failed to run at all counts as one failed test, and so does
// a run that left no results.
const fs = require('node:fs');
let passed = 0;
let failed = 0;
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
}
if (process.argv.length <= 2) failed += 1;
console.log(`${passed} passed, ${failed} failed`);
