// Measures the browser workbench on a generated 100,000-record (~100 MB) gold/pred JSONL file:
// drop → table on screen, and → charts on screen, in headless Debian Chromium against the real
// server. Prints the figures; not part of the test suite. Run through scripts/bench-workbench.sh.
import { writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launchBrowser, tempDir } from '../tests/e2e/support.mjs';

const RECORDS = Number(process.env.RECORDS ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 3);

function generate(path) {
  // Deterministic 0..10 scores with long free-text fields (questions and replies are what make
  // real prediction files big): about 1 KB per record.
  const filler = '这是一个用于测量的长文本字段。The reply explains each step of the solution in detail. '.repeat(9);
  const lines = new Array(RECORDS);
  let x = 12345;
  for (let i = 0; i < RECORDS; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const gold = x % 11;
    const pred = Math.max(0, Math.min(10, gold + ((x >> 8) % 5) - 2));
    lines[i] = JSON.stringify({ id: `r${i}`, gold, pred, question: `q${i % 1000}`, reply: filler });
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

const dir = tempDir('bench');
const file = join(dir, 'big_predictions.jsonl');
generate(file);
const mb = statSync(file).size / 1e6;
const server = await startServer();
const browser = await launchBrowser();
const results = [];
for (let run = 0; run < RUNS; run++) {
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.locator('.outcomes[data-ready="true"]').waitFor({ state: 'attached' });
  const t0 = Date.now();
  await page.setInputFiles('input[type=file]', file);
  await page.locator('[data-metric="qwk"][data-subset="overall"]').waitFor({ timeout: 120_000 });
  const table = Date.now() - t0;
  await page.click('button[data-tab="charts"]');
  await page.locator('figure.chart svg').first().waitFor({ timeout: 120_000 });
  const charts = Date.now() - t0;
  const worker = await page.locator('.timing').innerText();
  results.push({ table, charts, worker });
  console.log(`run ${run + 1}: table on screen ${table} ms, charts on screen ${charts} ms (${worker})`);
  await page.close();
}
await browser.close();
await server.stop();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`\n${RECORDS} records, ${mb.toFixed(1)} MB: median table ${median(results.map((r) => r.table))} ms, ` +
  `median table+charts ${median(results.map((r) => r.charts))} ms (goal ≤ 3000 ms)`);
