// Leaderboards in the app: publish from the workbench (the server re-scores and accepts the
// page's numbers), open the board link in a fresh browser, "Verify in my browser" shows ✓ with
// every input's SHA-256, the numbers equal the CLI's, a model name / metadata of
// `<img src=x onerror=alert(1)>` is inert, two entries compare, a publish against a board whose
// gold differs is refused with the differing values shown, and the board's HTML (curl) holds the
// ranked table and OpenGraph meta.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, launchBrowser, tempDir, artifacts, root, scorebench } from './support.mjs';

const PROBE = '<img src=x onerror=alert(1)>';
let server;
let base;
let browser;
before(async () => {
  server = await startServer();
  base = server.url.replace(/\/$/, '');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

function lb(args, cwd) {
  return JSON.parse(execFileSync(scorebench, ['leaderboard', ...args, '--server', base], { cwd, encoding: 'utf8' }));
}

function sha256(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** A page that fails the test on any dialog (an executed `alert`). */
async function guarded(context, dialogs) {
  const page = await context.newPage();
  page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  return page;
}

test('publish from the workbench, verify in a fresh browser, compare, inert user text', async () => {
  const dir = tempDir('leaderboard');
  const src = join(root, 'tests', 'golden', 'eotgc', 'eotgc_11_full_size_185');
  copyFileSync(join(src, 'gold.json'), join(dir, 'gold.json'));
  copyFileSync(join(src, 'pred.json'), join(dir, 'pred.json'));
  // A second model: every seventh essay's level moved one step (deterministic).
  const levels = ['不合格', '合格', '一般', '较好', '优秀'];
  const pred = JSON.parse(readFileSync(join(src, 'pred.json'), 'utf8'));
  const second = pred.map((r, i) => {
    if (i % 7 !== 0) return r;
    const k = levels.indexOf(r.classification);
    return { ...r, classification: levels[k >= 0 ? (k + 1) % 5 : 2] };
  });
  writeFileSync(join(dir, 'second.json'), JSON.stringify(second));
  // A board whose gold differs (every fifth gold level moved): the page's numbers cannot match.
  const gold = JSON.parse(readFileSync(join(src, 'gold.json'), 'utf8'));
  mkdirOther(dir, gold, levels);

  const slug = `e2e-${Date.now()}`;
  const description = `**Track 1** of [NLPCC](https://example.org/nlpcc) ${PROBE} <script>alert(2)</script> [x](javascript:alert(3))`;
  const made = lb(['create', '--slug', slug, '--title', 'EOTGC e2e', '--benchmark', 'eotgc', '--description', description, 'gold.json'], dir);
  assert.equal(made.slug, slug);
  const other = `${slug}-other`;
  lb(['create', '--slug', other, '--title', 'other gold', '--benchmark', 'eotgc', join('other', 'gold.json')], dir);

  // 1. Publish from the workbench.
  const dialogs = [];
  const page = await guarded(browser, dialogs);
  await page.goto(server.url);
  await page.setInputFiles('input[type=file]', [join(dir, 'gold.json'), join(dir, 'pred.json')]);
  await page.locator('section.card[data-model="model 1"] [data-metric="score"]').first().waitFor();
  await page.locator('[data-testid=publish] summary').click();
  await page.fill('[data-testid=publish-slug]', slug);
  await page.fill('[data-testid=publish-model]', PROBE);
  await page.fill('[data-testid=publish] input[data-meta=organisation]', PROBE);
  await page.fill('[data-testid=publish] input[data-meta=parameters]', '7B');
  await page.selectOption('[data-testid=publish] select[data-meta=open_weights]', 'yes');
  await page.click('[data-testid=publish-go]');
  const published = page.locator('[data-testid=published]');
  await published.waitFor({ timeout: 60_000 });
  const entryId = Number(await published.getAttribute('data-entry'));
  assert.ok(entryId > 0, 'an entry id');
  assert.match(await page.locator('[data-testid=entry-token]').innerText(), /^sbe_/);

  // The same files against a board with other gold: refused, the differing values listed.
  await page.fill('[data-testid=publish-slug]', other);
  await page.fill('[data-testid=publish-model]', 'refused');
  await page.click('[data-testid=publish-go]');
  await page.locator('[data-testid=publish-error]').waitFor({ timeout: 60_000 });
  const diffs = await page.$$eval('[data-testid=publish-error] [data-testid=difference]', (li) => li.map((l) => l.dataset.at));
  assert.ok(diffs.includes('overall.acc_a'), `acc_a differs: ${diffs}`);
  assert.equal(lb(['show', '--slug', other, '--json'], dir).entries.length, 0, 'nothing stored on refusal');
  await page.close();

  // A second entry from the CLI (for the comparison).
  const sub = lb(['submit', '--slug', slug, '--model', 'second', '--meta', 'organisation=Lab B', 'second.json'], dir);

  // 2. The board in a fresh browser context.
  const fresh = await launchBrowser();
  try {
    const board = await guarded(fresh, dialogs);
    await board.goto(`${base}/leaderboard/${slug}`);
    await board.locator('[data-app=leaderboard] [data-testid=ranked] tbody tr').first().waitFor();
    assert.equal(await board.locator('#leaderboard-ssr').count(), 0, 'the app replaced the server page');
    const cli = (file) => JSON.parse(execFileSync(scorebench, ['score', 'eotgc', '--gold', 'gold.json', file, '--json'], { cwd: dir, encoding: 'utf8' }));
    const want = cli('pred.json').overall.metrics;
    const row = board.locator(`tr[data-entry="${entryId}"]`);
    for (const m of ['acc_a', 'pearson', 'score']) {
      const v = JSON.parse(await row.locator(`td[data-metric="${m}"]`).getAttribute('data-value'));
      assert.equal(v, want[m], `${m} on the board equals the CLI`);
      assert.equal(await row.locator(`td[data-metric="${m}"]`).getAttribute('title'), JSON.stringify(want[m]), 'full value on hover');
    }
    // Inert user text: shown as text, no element, no dialog.
    assert.equal(await row.locator('td.model a').first().innerText(), PROBE);
    assert.equal(await board.locator('img[src=x]').count(), 0, 'no <img> from user text');
    // The description: its Markdown rendered, its HTML sanitised (no img, script or javascript: link).
    const desc = board.locator('[data-app=leaderboard] .description');
    assert.equal(await desc.locator('strong').innerText(), 'Track 1');
    assert.equal(await desc.locator('a[href="https://example.org/nlpcc"]').count(), 1);
    assert.equal(await desc.locator('img, script, [onerror]').count(), 0);
    assert.equal(await desc.locator('a[href^="javascript"]').count(), 0);
    // Sorting by a column and filtering by metadata.
    await board.click('th[data-sort=acc_a] button');
    const sorted = await board.$$eval('tbody td[data-metric=acc_a]', (tds) => tds.map((td) => JSON.parse(td.dataset.value)));
    assert.deepEqual(sorted, [...sorted].sort((a, b) => b - a), 'sorted by acc_a, descending');
    await board.selectOption('[data-testid=filter-key]', 'organisation');
    await board.fill('[data-testid=filter]', 'lab b');
    assert.equal(await board.locator('tbody tr').count(), 1, 'one entry from Lab B');
    await board.fill('[data-testid=filter]', '');
    await board.screenshot({ path: join(artifacts, 'leaderboard-board.png'), fullPage: true });

    // 3. Compare the two entries.
    await board.locator(`tr[data-entry="${entryId}"] [data-testid=pick]`).check();
    await board.locator(`tr[data-entry="${sub.entry}"] [data-testid=pick]`).check();
    await board.click('[data-testid=compare-link]');
    await board.locator('.compare td[data-metric="acc_a"][data-model^="model 2"]').waitFor({ timeout: 60_000 });
    const second = cli('second.json').overall.metrics;
    const a = JSON.parse(await board.locator('.compare td[data-metric="acc_a"][data-model^="model 1"]').getAttribute('data-value'));
    const b = JSON.parse(await board.locator('.compare td[data-metric="acc_a"][data-model^="model 2"]').getAttribute('data-value'));
    assert.equal(a, want.acc_a);
    assert.equal(b, second.acc_a);
    await board.click('[data-testid="run-bootstrap"]');
    await board.locator('[data-testid="intervals"]').waitFor({ timeout: 60_000 });

    // 4. The entry page: Verify in my browser (in Chinese: the interface speaks both).
    await board.goto(`${base}/leaderboard/${slug}/entry/${entryId}`);
    await board.locator('[data-testid=verify]').waitFor();
    const stored = JSON.parse(await board.locator('.stored-report td[data-subset="overall"][data-metric="score"]').getAttribute('data-value'));
    assert.equal(stored, want.score, 'the stored report before verifying');
    await board.click('.lang-switch');
    assert.equal(await board.locator('[data-testid=verify]').innerText(), '在我的浏览器中验证');
    await board.locator('[data-testid=verify]').click();
    await board.locator('[data-testid=verdict]').waitFor({ timeout: 60_000 });
    assert.equal(await board.locator('[data-testid=verdict]').getAttribute('data-ok'), 'true',
      await board.locator('[data-testid=verdict]').innerText());
    await board.locator('[data-testid=verified-ok]').waitFor();
    assert.match(await board.locator('[data-testid=verified-ok]').innerText(), /已在您的浏览器中验证/);
    const hashes = await board.$$eval('[data-testid=sha-row]', (rows) => rows.map((r) => [r.dataset.file, r.querySelector('.mono').textContent]));
    assert.deepEqual(Object.fromEntries(hashes), { 'pred.json': sha256(join(dir, 'pred.json')), 'gold.json': sha256(join(dir, 'gold.json')) });
    assert.equal(await board.locator('[data-testid=model]').innerText(), PROBE);
    assert.equal(await board.locator('[data-meta=organisation]').innerText(), PROBE);
    assert.equal(await board.locator('img[src=x]').count(), 0);
    // The re-scored report, charts and samples come from the worker.
    const scored = JSON.parse(await board.locator('.card td[data-subset="overall"][data-metric="score"]').first().getAttribute('data-value'));
    assert.equal(scored, want.score);
    await board.screenshot({ path: join(artifacts, 'leaderboard-verify.png'), fullPage: true });
    await board.goto(`${base}/leaderboards`);
    await board.locator(`[data-testid=boards] tr[data-slug="${slug}"]`).waitFor();

    // A hidden-gold board (competition): its entry shows the published SHA-256, no verify.
    const comp = `${slug}-hidden`;
    lb(['create', '--slug', comp, '--title', 'hidden', '--benchmark', 'eotgc', '--public-share', '1', '--hidden-gold', 'gold.json'], dir);
    const queued = lb(['submit', '--slug', comp, '--model', 'queued', 'pred.json'], dir);
    for (let i = 0; i < 200; i++) {
      const r = await fetch(`${base}/api/v1/leaderboards/${comp}/entries/${queued.entry}`);
      if (r.ok && (await r.json()).status === 'done') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await board.goto(`${base}/leaderboard/${comp}/entry/${queued.entry}`);
    await board.locator('[data-testid=hidden-gold]').waitFor();
    assert.equal(await board.locator('[data-testid=verify]').count(), 0, 'no verify on hidden gold');
    assert.equal(await board.locator('[data-testid=published-sha]').first().innerText(), sha256(join(dir, 'pred.json')));
  } finally {
    await fresh.close();
  }
  assert.deepEqual(dialogs, [], 'no dialog opened');

  // 5. The server-rendered page, as curl sees it.
  const html = await (await fetch(`${base}/leaderboard/${slug}`)).text();
  assert.match(html, /<meta property="og:title" content="EOTGC e2e">/);
  assert.match(html, /<table class="ranked">/);
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'), 'the model name, escaped');
  assert.ok(!html.includes(PROBE), 'no raw probe');
  assert.match(html, /<script type="module"/, 'the app is included');
});

function mkdirOther(dir, gold, levels) {
  const otherDir = join(dir, 'other');
  execFileSync('mkdir', ['-p', otherDir]);
  const moved = gold.map((r, i) => {
    if (i % 5 !== 0) return r;
    const k = levels.indexOf(r.classification);
    return { ...r, classification: levels[k >= 0 ? (k + 1) % 5 : 2] };
  });
  writeFileSync(join(otherDir, 'gold.json'), JSON.stringify(moved));
}
