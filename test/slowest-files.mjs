#!/usr/bin/env node
/**
 * The slowest test files of a vitest JSON report (`npx vitest run --reporter=json --outputFile=report.json`):
 * `node test/slowest-files.mjs report.json [count]` prints each file's duration (its tests, not its import)
 * and the sum, for keeping the suite's time in view.
 */
import fs from 'node:fs';
import path from 'node:path';

const [file, count = '30'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node test/slowest-files.mjs report.json [count]');
  process.exit(2);
}
const report = JSON.parse(fs.readFileSync(file, 'utf8'));
const files = report.testResults
  .map((t) => ({ name: path.relative(process.cwd(), t.name), seconds: (t.endTime - t.startTime) / 1000, status: t.status }))
  .sort((a, b) => b.seconds - a.seconds);
const sum = files.reduce((total, f) => total + f.seconds, 0);
console.log(`${files.length} files, ${report.numTotalTests} tests (${report.numFailedTests} failed); file durations sum to ${sum.toFixed(0)} s`);
for (const f of files.slice(0, Number(count))) console.log(`${f.seconds.toFixed(1).padStart(7)} s  ${f.status === 'passed' ? '' : `[${f.status}] `}${f.name}`);
