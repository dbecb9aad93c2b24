// Private share links (issue 14): share in one browser (its own profile), open in another; the
// same numbers, view and teacher adjustments come back. The bytes the server stored (read from
// its SQLite file) hold no essay sentence, no comment, no file name. A wrong or missing key, a
// deleted share: a clear message in both languages, no crash.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, launchBrowser, tempDir, artifacts, root, scorebench, pageMetrics } from './support.mjs';

const LEVELS = ['优秀', '较好', '一般', '合格', '不合格'];
let server;
let sender;
let recipient;
before(async () => {
  server = await startServer();
  sender = await launchBrowser();
  recipient = await launchBrowser();
});
after(async () => {
  await sender?.close();
  await recipient?.close();
  await server?.stop();
});

/** A seeded class in the EOTGC test layout (as teacher.test.mjs makes it): essays, levels, comments. */
function makeClass(dir) {
  let seed = 11;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const grades = [...Array(20).fill(5), ...Array(30).fill(7), ...Array(30).fill(9)];
  const chars = '我们的学校春天老师同学朋友生活努力梦想成长快乐';
  const para = () => Array.from({ length: 40 + Math.floor(rnd() * 60) }, () => pick([...chars])).join('');
  const essays = grades.map((g, i) => ({
    id: i, grade: String(g), requirement: `阅读下面的材料，根据要求写作。（第${i}题）`, title: `题目${i % 13}`,
    content: [para(), para(), para()].join('\n'),
  }));
  const levels = essays.map((e) => ({ id: e.id, classification: pick(LEVELS) }));
  const comments = essays.map((e) => ({ id: e.id, comment: '文章'.repeat(pick([0, 40, 100])) }));
  const files = { essays: join(dir, 'class_essays.json'), levels: join(dir, 'track1.json'), comments: join(dir, 'track2.json') };
  writeFileSync(files.essays, JSON.stringify(essays));
  writeFileSync(files.levels, JSON.stringify(levels));
  writeFileSync(files.comments, JSON.stringify(comments));
  return { essays, levels, comments, files };
}

/** A page that records uncaught errors and Rust panics. */
async function watchedPage(context) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && /panicked|RuntimeError|unreachable/.test(m.text())) errors.push(m.text()); });
  return { page, errors };
}

/** Share from `scope`'s button; returns { link, token, id, expiresMs }. */
async function share(page, scope = 'header') {
  await page.click(`${scope} button[data-action=share]`);
  await page.click('[data-testid=share-dialog] button[data-action=share-create]');
  await page.locator('[data-testid=share-made]').waitFor({ timeout: 60_000 });
  const link = await page.locator('[data-testid=share-link]').inputValue();
  const token = await page.locator('[data-testid=share-token]').innerText();
  const expiresMs = Number(await page.locator('[data-testid=share-made]').getAttribute('data-expires-ms'));
  const m = link.match(/\/s\/([A-Za-z0-9_-]{22})#([A-Za-z0-9_-]{43})$/);
  assert.ok(m, `a link /s/<id>#<key>: ${link}`);
  return { link, token, id: m[1], key: m[2], expiresMs };
}

/** The stored bytes of share `id`, read from the server's SQLite file. */
function storedBlob(id) {
  const script = 'import sqlite3,sys,base64\n'
    + 'c=sqlite3.connect(sys.argv[1])\n'
    + 'r=c.execute("SELECT bytes FROM shares WHERE id=?",(sys.argv[2],)).fetchone()\n'
    + 'print(base64.b64encode(r[0]).decode() if r else "")';
  const b64 = execFileSync('python3', ['-c', script, server.db, id], { encoding: 'utf8' }).trim();
  return Buffer.from(b64, 'base64');
}

/** How many shares the server's SQLite file holds. */
function shareCount() {
  const script = 'import sqlite3,sys\nprint(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM shares").fetchone()[0])';
  return Number(execFileSync('python3', ['-c', script, server.db], { encoding: 'utf8' }).trim());
}

/** No needle in the stored bytes; `files` (the plaintext) must hold each one, or the check proves nothing. */
function assertNoPlaintext(blob, needles, files) {
  assert.ok(blob.length > 0, 'the share is stored');
  const plain = Buffer.concat(files.map((f) => readFileSync(f)));
  for (const n of needles.filter((n) => !n.endsWith('.json') && !n.startsWith('tab=') && !n.startsWith('教师'))) {
    assert.notEqual(plain.indexOf(Buffer.from(n, 'utf8')), -1, `the dropped files contain ${JSON.stringify(n)}`);
  }
  for (const n of needles) {
    assert.equal(blob.indexOf(Buffer.from(n, 'utf8')), -1, `the stored bytes contain ${JSON.stringify(n)}`);
  }
}

test('a teacher shares a class with an adjustment; a colleague opens it with the same numbers', async () => {
  const dir = tempDir('share-class');
  const { essays, levels, files } = makeClass(dir);
  const { page: a, errors: errorsA } = await watchedPage(sender);
  await a.goto(server.url + '?lang=en');
  await a.setInputFiles('input[type=file]', [files.essays, files.levels, files.comments]);
  await a.locator('[data-essay-id]').first().waitFor({ timeout: 60_000 });
  // Adjust essay 5 (level, comment, reviewed) and review essay 6 as is.
  await a.locator('[data-essay-id="5"]').click();
  // A level two steps from the model's, so the agreement numbers move.
  const teacher5 = (LEVELS.indexOf(levels[5].classification) + 2) % 5;
  await a.selectOption('select[aria-label="teacher level"]', String(teacher5));
  await a.fill('textarea[aria-label="teacher comment"]', '教师改写的评语，只在链接里');
  await a.locator('textarea[aria-label="teacher comment"]').blur();
  await a.check('input[aria-label=reviewed]');
  await a.locator('[data-essay-id="6"]').click();
  await a.check('input[aria-label=reviewed]');
  await a.locator('html[data-saving="0"]').waitFor({ state: 'attached' });

  const shared = await share(a, '.class-view');
  const dialog = await a.locator('[data-testid=share-dialog]').innerText();
  assert.match(dialog, /never send to a server/, 'the dialog says the server never sees the key');
  assert.match(dialog, /32 MiB/, 'the dialog states the size limit');
  const days = (shared.expiresMs - Date.now()) / 86_400_000;
  assert.ok(days > 29.9 && days <= 30, `expires in 30 days (${days})`);
  await a.screenshot({ path: join(artifacts, 'share-dialog-en.png') });
  // The class view re-renders on a language switch; the link and its token (shown once) stay.
  await a.click('button.lang-switch');
  await a.locator('[data-testid=share-dialog] h2', { hasText: '私密分享' }).waitFor();
  assert.equal(await a.locator('[data-testid=share-token]').innerText(), shared.token);
  assert.equal(await a.locator('[data-testid=share-link]').inputValue(), shared.link);
  await a.click('button.lang-switch');

  // The server's stored bytes: no essay sentence, title, comment, file name or level.
  const blob = storedBlob(shared.id);
  const needles = [
    ...essays.flatMap((e) => e.content.split('\n').map((p) => p.slice(0, 16))),
    ...essays.map((e) => e.requirement),
    '教师改写的评语', 'class_essays.json', 'track1.json', '"classification"', '优秀', 'tab=class',
  ];
  assertNoPlaintext(blob, needles, [files.essays, files.levels, files.comments]);
  assert.equal(blob[0], 1, 'format byte');

  // The colleague's browser (its own profile, no adjustments): the same class and adjustments.
  const { page: b, errors: errorsB } = await watchedPage(recipient);
  await b.goto(shared.link.replace('#', '?lang=en#'));
  await b.locator('[data-testid=share-status][data-state=opened]').waitFor({ timeout: 60_000 });
  await b.locator('[data-essay-id]').first().waitFor({ timeout: 60_000 });
  assert.match(b.url(), /tab=class/, 'the view comes back');
  const expiry = new Date(shared.expiresMs).toISOString().slice(0, 10);
  assert.match(await b.locator('[data-testid=share-status]').innerText(), new RegExp(`Expires on: ${expiry}`));
  assert.equal(await b.locator('[data-testid=share-adjustments]').getAttribute('data-state'), 'saved');
  await b.locator(`[data-essay-id="5"][data-teacher-level="${LEVELS[teacher5]}"]`).waitFor({ timeout: 30_000 });
  await b.locator('[data-essay-id="5"]').click();
  assert.equal(await b.locator('textarea[aria-label="teacher comment"]').inputValue(), '教师改写的评语，只在链接里');
  // Distribution and agreement: the same cells and values on both sides.
  const cells = (p) => p.$$eval('[data-testid=class-distribution] [data-count]',
    (els) => els.map((e) => `${e.dataset.grade}|${e.dataset.level}|${e.dataset.count}`));
  assert.deepEqual(await cells(b), await cells(a));
  const agreement = async (p) => ({
    n: await p.locator('[data-testid=agreement]').getAttribute('data-n'),
    metrics: await pageMetrics(p, '[data-testid=agreement]'),
  });
  const agreeA = await agreement(a);
  assert.equal(agreeA.n, '2');
  assert.deepEqual(await agreement(b), agreeA);
  // Agreement equals the CLI on the same pairs (teacher as gold, model as pred).
  const pairs = [[5, teacher5], [6, null]].map(([id, teacher]) => {
    const model = LEVELS.indexOf(levels[id].classification);
    return { gold: 4 - (teacher ?? model), pred: 4 - model };
  });
  const pairsFile = join(dir, 'pairs.jsonl');
  writeFileSync(pairsFile, pairs.map((p) => JSON.stringify(p)).join('\n') + '\n');
  const cli = JSON.parse(execFileSync(scorebench, ['score', 'pairs', pairsFile, '--labels', '0,1,2,3,4', '--json'], { encoding: 'utf8' }));
  const exact = JSON.parse(await b.locator('[data-testid=agreement] [data-metric=exact]').getAttribute('data-value'));
  assert.equal(exact, cli.overall.metrics.accuracy);
  assert.notEqual(LEVELS[teacher5], levels[5].classification, 'the adjustment moves the agreement');
  await b.screenshot({ path: join(artifacts, 'share-opened-class.png') });

  // The colleague changes essay 6, then opens the link again: asked before their own
  // adjustments are replaced; "Cancel" keeps theirs.
  await b.locator('[data-essay-id="6"]').click();
  await b.selectOption('select[aria-label="teacher level"]', '4');
  await b.locator('[data-essay-id="6"][data-teacher-level="不合格"]').waitFor({ timeout: 30_000 });
  await b.locator('html[data-saving="0"]').waitFor({ state: 'attached' }); // the IndexedDB write
  const asked = [];
  b.on('dialog', (d) => { asked.push(d.message()); d.dismiss(); });
  await b.goto(shared.link.replace('#', '?lang=en#'));
  await b.locator('[data-testid=share-status][data-state=opened]').waitFor({ timeout: 60_000 });
  assert.equal(asked.length, 1, 'asked once');
  assert.match(asked[0], /Replace your adjustments/);
  assert.equal(await b.locator('[data-testid=share-adjustments]').getAttribute('data-state'), 'kept');
  await b.locator('[data-essay-id="6"][data-teacher-level="不合格"]').waitFor({ timeout: 30_000 });

  // The owner deletes the share with the token shown once; the link then says so.
  await a.click('[data-testid=share-dialog] button[data-action=share-delete]');
  await a.locator('[data-testid=share-deleted]').waitFor();
  const { page: c, errors: errorsC } = await watchedPage(recipient);
  await c.goto(shared.link.replace('#', '?lang=en#'));
  const gone = c.locator('[data-testid=share-status][data-state=failed]');
  await gone.waitFor({ timeout: 30_000 });
  assert.equal(await gone.getAttribute('data-error'), 'not-found');
  assert.match(await gone.innerText(), /deleted/);
  assert.equal(storedBlob(shared.id).length, 0, 'nothing left on the server');
  assert.deepEqual([...errorsA, ...errorsB, ...errorsC], []);
  await Promise.all([a.close(), b.close(), c.close()]);
});

test("a researcher's two models (EOTGC golden case): the same numbers and comparison after the round trip", async () => {
  const dir = tempDir('share-golden');
  const src = join(root, 'tests', 'golden', 'eotgc', 'eotgc_11_full_size_185');
  copyFileSync(join(src, 'gold.json'), join(dir, 'gold.json'));
  copyFileSync(join(src, 'pred.json'), join(dir, 'model_a.json'));
  const predA = JSON.parse(readFileSync(join(src, 'pred.json'), 'utf8'));
  const order = ['不合格', '合格', '一般', '较好', '优秀'];
  const predB = predA.map((r, i) => {
    if (i % 4 !== 0) return r;
    const k = order.indexOf(r.classification);
    return { ...r, classification: order[k >= 0 ? (k + 1) % 5 : 2] };
  });
  writeFileSync(join(dir, 'model_b.json'), JSON.stringify(predB));

  const { page: a, errors: errorsA } = await watchedPage(sender);
  await a.goto(server.url + '?lang=zh-CN');
  await a.setInputFiles('input[type=file]', [join(dir, 'gold.json'), join(dir, 'model_a.json')]);
  await a.locator('section.card[data-model="model 1"] [data-metric="acc_a"]').first().waitFor({ timeout: 60_000 });
  await a.setInputFiles('input[type=file]', [join(dir, 'model_b.json')]);
  await a.locator('section.card[data-model="model 2"] [data-metric="acc_a"]').first().waitFor({ timeout: 60_000 });
  const before = {
    m1: await pageMetrics(a, 'section.card[data-model="model 1"]'),
    m2: await pageMetrics(a, 'section.card[data-model="model 2"]'),
  };
  await a.click('button[data-tab="compare"]');
  const shared = await share(a);
  await a.screenshot({ path: join(artifacts, 'share-dialog-zh.png') });
  const gold = readFileSync(join(src, 'gold.json'), 'utf8');
  const goldRows = JSON.parse(gold);
  const texts = [...new Set(goldRows.flatMap((r) => [r.content, r.title, r.requirement]))];
  assert.ok(texts.length > 185, `essay texts to look for (${texts.length})`);
  assertNoPlaintext(storedBlob(shared.id), [...texts, 'model_a.json', 'gold.json'],
    [join(dir, 'gold.json'), join(dir, 'model_a.json'), join(dir, 'model_b.json')]);

  const { page: b, errors: errorsB } = await watchedPage(recipient);
  await b.goto(shared.link);
  await b.locator('[data-testid=share-status][data-state=opened]').waitFor({ timeout: 60_000 });
  assert.match(b.url(), /tab=compare/, 'the shared tab');
  await b.click('button[data-tab="table"]');
  await b.locator('section.card[data-model="model 2"] [data-metric="acc_a"]').first().waitFor({ timeout: 60_000 });
  const after = {
    m1: await pageMetrics(b, 'section.card[data-model="model 1"]'),
    m2: await pageMetrics(b, 'section.card[data-model="model 2"]'),
  };
  assert.deepEqual(after, before, 'the same numbers, each model in its own drop');
  // … and they are the CLI's.
  for (const [model, file] of [['m1', 'model_a.json'], ['m2', 'model_b.json']]) {
    const cli = JSON.parse(execFileSync(scorebench, ['score', 'eotgc', '--gold', 'gold.json', file, '--json'], { cwd: dir, encoding: 'utf8' }));
    for (const m of ['acc_a', 'pearson', 'score']) {
      assert.equal(after[model][`overall/${m}`], cli.overall.metrics[m], `${model} ${m}`);
    }
  }
  assert.deepEqual([...errorsA, ...errorsB], []);
  await Promise.all([a.close(), b.close()]);
});

test('files past the 32 MiB limit: refused with their size, nothing uploaded', async () => {
  // 40 MB of gold/pred records (the free text makes them big).
  const file = join(tempDir('share-big'), 'big_predictions.jsonl');
  const reply = 'a long reply that makes each record about a kilobyte. '.repeat(18);
  const lines = Array.from({ length: 40_000 }, (_, i) => JSON.stringify({ id: `r${i}`, gold: i % 5, pred: (i * 7) % 5, reply }));
  writeFileSync(file, lines.join('\n') + '\n');
  const size = readFileSync(file).length;
  assert.ok(size > 32 * 1024 * 1024, `the file is past the limit (${size} bytes)`);
  const before = shareCount();
  const { page, errors } = await watchedPage(sender);
  await page.goto(server.url + '?lang=en');
  await page.setInputFiles('input[type=file]', file);
  await page.locator('[data-metric="qwk"][data-subset="overall"]').first().waitFor({ timeout: 60_000 });
  await page.click('header button[data-action=share]');
  await page.click('[data-testid=share-dialog] button[data-action=share-create]');
  const error = page.locator('[data-testid=share-error][data-error=too-large]');
  await error.waitFor({ timeout: 30_000 });
  const mib = (size / (1024 * 1024)).toFixed(1);
  assert.ok((await error.innerText()).includes(`${mib} MiB`), `the message gives the size (${mib} MiB): ${await error.innerText()}`);
  assert.equal(shareCount(), before, 'nothing was uploaded');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a wrong or missing key, or an unknown share: a clear message in both languages, no crash', async () => {
  const dir = tempDir('share-keys');
  const { files } = makeClass(dir);
  const { page: a } = await watchedPage(sender);
  await a.goto(server.url + '?lang=en');
  await a.setInputFiles('input[type=file]', [files.essays, files.levels]);
  await a.locator('[data-essay-id]').first().waitFor({ timeout: 60_000 });
  const shared = await share(a);
  await a.close();

  const base = `${server.url}s/${shared.id}`;
  const flip = shared.key.slice(0, -2) + (shared.key.at(-2) === 'A' ? 'B' : 'A') + shared.key.at(-1);
  const cases = [
    { url: `${base}?lang=en#${flip}`, kind: 'wrong-key', text: /does not open this share/ },
    { url: `${base}?lang=zh-CN#${flip}`, kind: 'wrong-key', text: /无法打开这个分享/ },
    { url: `${base}?lang=en#${shared.key.slice(0, 20)}`, kind: 'wrong-key', text: /does not open this share/ },
    { url: `${base}?lang=en`, kind: 'missing-key', text: /has no key/ },
    { url: `${base}?lang=zh-CN#`, kind: 'missing-key', text: /缺少密钥/ },
    { url: `${server.url}s/AAAAAAAAAAAAAAAAAAAAAA?lang=en#${shared.key}`, kind: 'not-found', text: /no such share/ },
    { url: `${server.url}s/AAAAAAAAAAAAAAAAAAAAAA?lang=zh-CN#${shared.key}`, kind: 'not-found', text: /没有这个分享/ },
  ];
  for (const c of cases) {
    const { page, errors } = await watchedPage(recipient);
    await page.goto(c.url);
    const status = page.locator('[data-testid=share-status][data-state=failed]');
    await status.waitFor({ timeout: 30_000 });
    assert.equal(await status.getAttribute('data-error'), c.kind, c.url);
    assert.match(await status.innerText(), c.text, c.url);
    // The page still works: files can be dropped.
    assert.equal(await page.locator('input[type=file]').count(), 1);
    assert.deepEqual(errors, [], c.url);
    if (c.kind === 'wrong-key' && c.url.includes('zh-CN')) await page.screenshot({ path: join(artifacts, 'share-wrong-key-zh.png') });
    await page.close();
  }

  // An expired share (its expiry moved into the past in the server's file): 410, said so, and
  // deleted from the server.
  const script = 'import sqlite3,sys\n'
    + 'c=sqlite3.connect(sys.argv[1])\n'
    + 'c.execute("UPDATE shares SET expires_ms=expires_ms-31*86400000 WHERE id=?",(sys.argv[2],))\n'
    + 'c.commit()';
  execFileSync('python3', ['-c', script, server.db, shared.id]);
  for (const [lang, text] of [['zh-CN', /已过期/], ['en', /no such share/]]) {
    const { page, errors } = await watchedPage(recipient);
    await page.goto(`${base}?lang=${lang}#${shared.key}`);
    const status = page.locator('[data-testid=share-status][data-state=failed]');
    await status.waitFor({ timeout: 30_000 });
    // The first visit finds it expired (410); it is deleted then, so the next finds nothing.
    assert.equal(await status.getAttribute('data-error'), lang === 'zh-CN' ? 'expired' : 'not-found');
    assert.match(await status.innerText(), text);
    assert.deepEqual(errors, []);
    await page.close();
  }
  assert.equal(storedBlob(shared.id).length, 0, 'the expired share is deleted');
});
