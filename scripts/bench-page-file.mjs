// One file (or several) dropped into the workbench in headless Chromium against the real
// server: time to the first number of the named benchmark, Chromium's peak RSS above the idle tab
// against the files' size, and the same number from the CLI (`scorebench score ARGS --json`) on
// the same files. For the gigabyte runs of other benchmarks than gold/pred (issue 16, item 2). The
// peak covers what follows the number too: the hashes, the samples tab and one sample's detail.
//   SCOREBENCH_BIN=target/release/scorebench node scripts/bench-page-file.mjs BENCHMARK METRIC FILE... -- CLI_ARGS...
import { statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { startServer, launchBrowser, scorebench, chromiumRssKb } from '../tests/e2e/support.mjs';

const args = process.argv.slice(2);
const cut = args.indexOf('--');
if (args.length < 3 || cut < 3) {
  console.error('usage: bench-page-file.mjs BENCHMARK METRIC FILE... -- CLI_ARGS...');
  process.exit(2);
}
const [benchmark, metric, ...files] = args.slice(0, cut);
const cliArgs = args.slice(cut + 1);
const size = files.reduce((n, f) => n + statSync(f).size, 0);
const mb = (b) => (b / 1e6).toFixed(0);

const started = Date.now();
const report = JSON.parse(execFileSync(scorebench, ['score', ...cliArgs, '--json'], { encoding: 'utf8', maxBuffer: 1 << 30 }));
const cliMs = Date.now() - started;
const server = await startServer();
const browser = await launchBrowser();
const page = await browser.newPage();
await page.goto(server.url);
await page.locator('.outcomes').waitFor({ state: 'attached' });
await page.evaluate(() => document.body.dispatchEvent(new DragEvent('dragenter', { bubbles: true })));
await page.locator('.outcomes[data-ready="true"]').waitFor({ state: 'attached' });
const idle = chromiumRssKb();
let peak = idle;
const sampler = setInterval(() => { peak = Math.max(peak, chromiumRssKb()); }, 100);
const t0 = Date.now();
await page.setInputFiles('input[type=file]', files);
const cell = `section.card[data-benchmark="${benchmark}"] [data-metric="${metric}"][data-subset="overall"]`;
// The number, or the card's error / the page's alert when scoring failed.
const failed = `section.card[data-benchmark="${benchmark}"] [data-testid="file-error"], [role="alert"]`;
await page.locator(`${cell}, ${failed}`).first().waitFor({ timeout: 900_000 });
if (await page.locator(failed).count() > 0) {
  console.log(`${benchmark}: failed after ${Date.now() - t0} ms: ${await page.locator(failed).first().innerText()}`);
  clearInterval(sampler);
  console.log(`Chromium peak ${mb(peak * 1024)} MB, ${mb((peak - idle) * 1024)} MB above the idle tab`);
  await browser.close();
  await server.stop();
  process.exit(1);
}
const ms = Date.now() - t0;
const peakAtNumber = peak;
const value = JSON.parse(await page.locator(cell).first().getAttribute('data-value'));
// What follows the number, inside the measured peak: the files' hashes, then the samples tab with
// its first rows and the detail of the first sample (the rows are built in the worker on demand).
await page.locator(`section.card[data-benchmark="${benchmark}"][data-hashed="true"]`).first()
  .waitFor({ state: 'attached', timeout: 900_000 });
const peakAtHashed = peak;
const hashedMs = Date.now() - t0;
await page.click('button[data-tab="samples"]');
const firstRow = page.locator('.vrow[data-sample]').first();
await firstRow.waitFor({ timeout: 900_000 });
await firstRow.click();
await page.locator('[data-testid="sample-detail"]').waitFor({ timeout: 900_000 });
const settled = Date.now() - t0;
await new Promise((r) => setTimeout(r, 500));
clearInterval(sampler);
const want = report.overall.metrics[metric];
console.log(`${benchmark}, ${files.length} file(s), ${mb(size)} MB: CLI ${cliMs} ms, page first number ${ms} ms ` +
  `(${(ms / cliMs).toFixed(2)}×); Chromium peak ${mb(peak * 1024)} MB, ${mb((peak - idle) * 1024)} MB above the idle tab ` +
  `(${((peak - idle) * 1024 / size).toFixed(2)}× the input; ${mb((peakAtNumber - idle) * 1024)} MB until the number, ` +
  `${mb((peakAtHashed - idle) * 1024)} MB until hashed at ${hashedMs} ms; ` +
  `hashed, samples and a detail shown at ${settled} ms); ${metric} ${value === want ? 'same as the CLI' : `DIFFERS: page ${value}, CLI ${want}`}`);
await browser.close();
await server.stop();
