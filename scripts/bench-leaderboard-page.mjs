// The leaderboard page in Chromium (printed, not a test): first contentful paint of the
// server-rendered page, when the app's ranked table replaces it (board JSON fetched and parsed),
// how long sorting by a metric column and turning a page take, and the sizes of the HTML and
// the JSON. Called by scripts/bench-leaderboard.py --page; alone: node THIS URL SLUG.
import { launchBrowser } from '../tests/e2e/support.mjs';

const [base, slug] = process.argv.slice(2);
const browser = await launchBrowser();
try {
  const json = await (await fetch(`${base}/api/v1/leaderboards/${slug}`)).arrayBuffer();
  const html = await (await fetch(`${base}/leaderboard/${slug}`)).arrayBuffer();
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const page = await browser.newPage();
    await page.goto(`${base}/leaderboard/${slug}`, { waitUntil: 'commit' });
    await page.locator('[data-app=leaderboard] [data-testid=ranked] tbody tr').first().waitFor({ timeout: 300_000 });
    const appMs = await page.evaluate(() => performance.now());
    const fcpMs = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null);
    const loadedMs = Number(await page.evaluate(() => document.body.dataset.boardLoadedMs));
    const sortMs = await page.evaluate(async () => {
      const t = performance.now();
      document.querySelector('th[data-sort=acc_a] button').click();
      while (!document.querySelector('th[data-sort=acc_a]').textContent.includes('▼')) await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return performance.now() - t;
    });
    const values = await page.$$eval('[data-testid=ranked] tbody td[data-metric=acc_a]', (tds) => tds.map((td) => JSON.parse(td.dataset.value)));
    const sorted = values.every((v, k) => k === 0 || values[k - 1] >= v);
    const pageMs = await page.evaluate(async () => {
      const t = performance.now();
      document.querySelector('[data-testid=next]').click();
      while (!document.querySelector('[data-testid=page]').textContent.includes('2 /')) await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return performance.now() - t;
    });
    const rows = await page.locator('[data-testid=ranked] tbody tr').count();
    runs.push({ fcpMs, appMs, loadedMs, sortMs, pageMs, sorted, rows });
    await page.close();
  }
  const best = (k) => Math.min(...runs.map((r) => r[k]));
  const entries = JSON.parse(new TextDecoder().decode(json)).entries.length;
  console.log(`page: ${entries} entries; HTML ${(html.byteLength / 1e6).toFixed(1)} MB, JSON ${(json.byteLength / 1e6).toFixed(1)} MB`);
  console.log(`page: first contentful paint (server HTML) ${best('fcpMs').toFixed(0)} ms; app's ranked table ${best('appMs').toFixed(0)} ms after navigation (board JSON fetched + parsed in ${best('loadedMs').toFixed(0)} ms); best of 3`);
  console.log(`page: sort by acc_a ${best('sortMs').toFixed(0)} ms (${runs.every((r) => r.sorted) ? 'sorted' : 'NOT SORTED'}), next page ${best('pageMs').toFixed(0)} ms; ${runs[0].rows} rows rendered`);
} finally {
  await browser.close();
}
