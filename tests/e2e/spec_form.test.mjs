// "Define a benchmark from these files" (issue 28): a rubric CSV and a model's CSV that no
// benchmark recognises are dropped; the form shows their fields with sample values; the fields
// are mapped (id, subset, gold, prediction) and metrics chosen while the report previews; saving
// downloads the spec and keeps it in this browser, and the files are scored with it — the same
// report as `scorebench score --spec` on the downloaded spec. After a reload the same files are
// recognised at once; the workbench publishes the model to a board made of that spec, and a
// fresh browser context verifies the entry bit for bit; a forgotten spec recognises nothing on
// the next visit. The form speaks Chinese too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { serverAndBrowser, tempDir, artifacts, scorebench, launchBrowser, root } from './support.mjs';

const env = serverAndBrowser();

function run(args, cwd) {
  const r = spawnSync(scorebench, args, { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** 60 students in three sections, a teacher's rubric score 0–4 and a model's (seeded). */
function rubricFiles(dir) {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  let gold = 'student,section,teacher\n';
  let model = 'student,score\n';
  for (let i = 1; i <= 60; i++) {
    const t = next() % 5;
    const off = (next() % 3) - 1;
    gold += `s${i},${['A', 'B', 'C'][i % 3]},${t}\n`;
    model += `s${i},${Math.min(4, Math.max(0, t + off))}\n`;
  }
  writeFileSync(join(dir, 'rubric_gold.csv'), gold);
  writeFileSync(join(dir, 'model_a.csv'), model);
  return [join(dir, 'rubric_gold.csv'), join(dir, 'model_a.csv')];
}

/** Choose what a field is and wait for the worker's answer (the form is drawn again). */
async function use(page, file, field, what) {
  const select = page.locator(`table[data-file="${file}"] tr[data-field="${field}"] select`);
  await select.selectOption(what);
  await page.locator(`table[data-file="${file}"] tr[data-field="${field}"] select option[value="${what}"][selected]`)
    .waitFor({ state: 'attached', timeout: 30_000 });
}

test('define a benchmark in the page, save it, reload, score, publish and verify', async () => {
  const dir = tempDir('spec-form');
  const files = rubricFiles(dir);
  // The page's storage lives in this browser (env.browser: one persistent context).
  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.base}/?lang=en`);
  await page.setInputFiles('input[type=file]', files);

  // Nothing recognises the files: the form is offered.
  await page.locator('tr[data-file="model_a.csv"][data-role="unknown"]').waitFor({ timeout: 60_000 });
  await page.click('[data-testid=define-spec]');
  const form = page.locator('[data-testid=spec-form]');
  await form.waitFor({ timeout: 30_000 });
  // Fields with sample values; the gold file first whatever the drop order.
  const goldTable = form.locator('table[data-file="rubric_gold.csv"]');
  assert.match(await goldTable.locator('tr[data-field="section"]').innerText(), /B · C · A|A · B · C|[ABC] · [ABC] · [ABC]/);
  assert.equal(await form.locator('table.spec-fields').first().getAttribute('data-file'), 'rubric_gold.csv');

  await use(page, 'rubric_gold.csv', 'student', 'id');
  await use(page, 'rubric_gold.csv', 'section', 'subset');
  await use(page, 'rubric_gold.csv', 'teacher', 'gold');
  await use(page, 'model_a.csv', 'student', 'id');
  await use(page, 'model_a.csv', 'score', 'pred');
  await page.fill('[data-testid=spec-key]', 'class-rubric');
  await page.locator('[data-testid=spec-key]').press('Tab');
  await page.locator('[data-testid=spec-preview] table[data-benchmark="class-rubric"]').waitFor({ timeout: 30_000 });
  // Kendall's τ-b added to the metrics: previewed at once.
  await page.locator('input[data-metric="kendall_tau_b"]').check();
  const tau = page.locator('[data-testid=spec-preview] [data-metric="kendall_tau_b"][data-subset="overall"]');
  await tau.waitFor({ timeout: 30_000 });
  await page.screenshot({ path: join(artifacts, 'spec-form.png'), fullPage: true });

  // Save: the spec downloads, the files are scored with it.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=spec-save]')]);
  assert.equal(download.suggestedFilename(), 'class-rubric.toml');
  const specPath = join(dir, 'class-rubric.toml');
  await download.saveAs(specPath);
  await page.locator('[data-testid=spec-form]').waitFor({ state: 'detached', timeout: 30_000 });
  const card = page.locator('section.card[data-files~="model_a.csv"]');
  await card.locator('[data-metric="qwk"][data-subset="overall"]').waitFor({ timeout: 60_000 });
  await page.locator('section.card[data-files~="model_a.csv"][data-hashed="true"]').waitFor({ timeout: 30_000 });
  const exported = JSON.parse(await card.locator('button[data-export="json"]').getAttribute('data-content'));
  const want = JSON.parse(run(['score', '--spec', 'class-rubric.toml', 'rubric_gold.csv', 'model_a.csv', '--json'], dir));
  assert.deepEqual(exported, want, 'the page\'s JSON export is `score --spec`\'s report');
  assert.equal(want.subsets.length, 3);

  // Kept in this browser: after a reload the same files are recognised and scored at once.
  await page.reload();
  await page.setInputFiles('input[type=file]', files);
  await page.locator('tr[data-file="rubric_gold.csv"][data-role="class-rubric-gold"]').waitFor({ timeout: 60_000 });
  await page.locator('tr[data-file="model_a.csv"][data-role="class-rubric-predictions"]').waitFor();
  await card.locator('[data-metric="qwk"][data-subset="overall"]').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('[data-testid=define-spec]').count(), 0, 'nothing left to define');

  // A board made of the spec; the workbench publishes the model to it.
  const slug = `rubric-${Date.now()}`;
  run(['leaderboard', 'create', '--slug', slug, '--title', 'Class rubric', 'rubric_gold.csv', 'class-rubric.toml', '--server', env.base], dir);
  await page.locator('[data-testid=publish] summary').click();
  await page.fill('[data-testid=publish-slug]', slug);
  await page.fill('[data-testid=publish-model]', 'model A');
  await page.click('[data-testid=publish-go]');
  const published = page.locator('[data-testid=published]');
  await published.waitFor({ timeout: 60_000 });
  const entry = Number(await published.getAttribute('data-entry'));
  await page.screenshot({ path: join(artifacts, 'spec-form-published.png'), fullPage: true });

  // The kept spec is listed; forgotten, the next visit no longer recognises its files.
  await page.locator('[data-testid=kept-specs] summary').click();
  const kept = page.locator('[data-testid=kept-specs] li[data-spec="class-rubric"]');
  assert.equal(await kept.count(), 1);
  await kept.locator('[data-testid=kept-spec-forget]').click();
  await page.locator('[data-testid=kept-specs]').waitFor({ state: 'detached' });
  await page.reload();
  await page.setInputFiles('input[type=file]', files);
  await page.locator('tr[data-file="model_a.csv"][data-role="unknown"]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid=define-spec]').waitFor();
  assert.deepEqual(errors, [], 'no page errors');
  await page.close();

  // A fresh browser: the board's spec travels with it; the entry verifies bit for bit.
  const fresh = await launchBrowser();
  try {
    const board = await fresh.newPage();
    await board.goto(`${env.base}/leaderboard/${slug}/entry/${entry}`);
    await board.locator('[data-testid=verify]').click({ timeout: 30_000 });
    const verdict = board.locator('[data-testid=verdict]');
    await verdict.waitFor({ timeout: 60_000 });
    assert.equal(await verdict.getAttribute('data-ok'), 'true', await verdict.innerText());
  } finally {
    await fresh.close();
  }
});

test('the form in Chinese, and a bad choice is explained, not saved', async () => {
  const dir = tempDir('spec-form-zh');
  const files = rubricFiles(dir);
  // A browser that has not kept the spec above.
  const browser = await launchBrowser();
  const page = await browser.newPage();
  await page.goto(`${env.base}/?lang=zh-CN`);
  await page.setInputFiles('input[type=file]', files);
  await page.click('[data-testid=define-spec]', { timeout: 60_000 });
  const form = page.locator('[data-testid=spec-form]');
  await form.waitFor({ timeout: 30_000 });
  assert.equal(await form.locator('h2').innerText(), '定义基准');
  // Two gold fields in one file: the worker says so and nothing can be saved.
  await use(page, 'rubric_gold.csv', 'section', 'gold');
  await use(page, 'rubric_gold.csv', 'teacher', 'gold');
  const error = page.locator('[data-testid=spec-error]');
  await error.waitFor({ timeout: 30_000 });
  assert.match(await error.innerText(), /rubric_gold\.csv: both `\w+` and `\w+` are `gold`/);
  assert.equal(await page.locator('[data-testid=spec-save]').isDisabled(), true);
  await page.click('[data-testid=spec-cancel]');
  await form.waitFor({ state: 'detached' });
  await browser.close();
});

test('a dropped spec: its files recognised and scored as `score --spec`; a broken one named with its line', async () => {
  const dir = tempDir('spec-drop');
  const [gold, pred] = ['training_set_rel3.tsv', 'predictions.csv'];
  for (const f of [gold, pred]) copyFileSync(join(root, 'tests', 'golden', 'asap_aes', 'asap_01_basic', f), join(dir, f));
  const spec = readFileSync(join(root, 'specs', 'examples', 'asap-aes.toml'), 'utf8');
  writeFileSync(join(dir, 'asap-aes.toml'), spec);
  const brokenLine = spec.split('\n').findIndex((l) => l.startsWith('version = ')) + 2;
  writeFileSync(join(dir, 'broken.toml'), spec.replace(/^version = .*$/m, '$&\nversoin = 2'));
  const want = JSON.parse(run(['score', '--spec', 'asap-aes.toml', gold, pred, '--json'], dir));

  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.base}/?lang=en`);
    await page.setInputFiles('input[type=file]', join(dir, 'broken.toml'));
    const said = page.locator('ul.page-errors li').first();
    await said.waitFor({ timeout: 60_000 });
    assert.match(await said.innerText(), new RegExp(`^broken\\.toml:${brokenLine}: .*versoin`));
    assert.equal(await page.locator('tr[data-file="broken.toml"]').count(), 0, 'a broken spec is not held as a file');

    // The spec dropped with its files: registered first, it claims them (the built-in ASAP-AES
    // would recognise them too), and the page's report is the CLI's.
    await page.setInputFiles('input[type=file]', [join(dir, 'asap-aes.toml'), join(dir, gold), join(dir, pred)]);
    await page.locator(`tr[data-file="${gold}"][data-role="asap-aes-spec-gold"]`).waitFor({ timeout: 60_000 });
    await page.locator('tr[data-file="asap-aes.toml"][data-role="asap-aes-spec:spec"]').waitFor();
    const card = page.locator(`section.card[data-benchmark="asap-aes-spec"][data-hashed="true"]`);
    await card.waitFor({ timeout: 60_000 });
    const exported = JSON.parse(await card.locator('button[data-export="json"]').getAttribute('data-content'));
    assert.deepEqual(exported, want, 'the page\'s JSON export is `score --spec`\'s report');
    await page.locator('[data-testid=kept-specs] summary').click();
    assert.equal(await page.locator('[data-testid=kept-specs] li[data-spec="asap-aes-spec"]').count(), 1, 'a dropped spec is kept');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});
