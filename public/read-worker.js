// Reads a dropped file for the scoring worker (app/src/worker.rs) on a thread of its own: a
// blob read moves on only while its thread is free, so the scoring worker, which parses the
// slices it already has, cannot read them itself without waiting. At most `ahead` slices are
// being read or waiting to be taken (the scoring worker sends "next" for each it took), so a
// big file is never held twice. Messages out: each slice's ArrayBuffer (transferred, in
// order), then "done"; or { error }.
let job = null;

function fill() {
  while (job && job.credits > 0 && job.asked < job.file.size) {
    // The first slices are small and double up to `chunk`: parsing starts as soon as the first
    // comes and does not wait long for the next while the reads get going.
    const end = Math.min(job.file.size, job.asked + Math.min(job.chunk, job.first * 2 ** job.slices));
    job.slices += 1;
    job.reads.push(job.file.slice(job.asked, end).arrayBuffer());
    job.asked = end;
    job.credits -= 1;
  }
  if (job && job.wake && job.reads.length > 0) {
    job.wake();
    job.wake = null;
  }
}

async function read(j) {
  while (j.asked < j.file.size || j.reads.length > 0) {
    if (j.reads.length === 0) {
      await new Promise((resolve) => { j.wake = resolve; });
      continue;
    }
    const buffer = await j.reads.shift();
    postMessage(buffer, [buffer]);
    fill();
  }
  postMessage('done');
}

onmessage = ({ data }) => {
  if (data === 'next') {
    if (job) {
      job.credits += 1;
      fill();
    }
    return;
  }
  job = { file: data.file, first: data.first, chunk: data.chunk, credits: data.ahead, asked: 0, slices: 0, reads: [], wake: null };
  fill();
  read(job).catch((e) => postMessage({ error: String(e && e.message ? e.message : e) }));
};

// A worker's first blob read waits for the browser to set reading up (~60 ms measured): done
// now, before a file comes.
new Blob(['warm']).arrayBuffer();
