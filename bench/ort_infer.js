// ONNX Runtime's CPU inference timed the way `rooflens measure` times itself: the peer of
// bench/peer_ort.sh. One JSON line on stdout.
// usage: node bench/ort_infer.js MODEL.onnx BATCH THREADS MAX_SECONDS [PROFILE_PREFIX]
// needs: onnxruntime-node on NODE_PATH (bench/peer_ort.sh installs it with npm --ignore-scripts)
'use strict';
const ort = require('onnxruntime-node');

async function main() {
  const [model, batchArg, threadsArg, secondsArg, profile] = process.argv.slice(2);
  if (!model || !batchArg || !threadsArg || !secondsArg) {
    console.error('usage: node ort_infer.js MODEL.onnx BATCH THREADS MAX_SECONDS [PROFILE_PREFIX]');
    process.exit(2);
  }
  const batch = parseInt(batchArg, 10), threads = parseInt(threadsArg, 10);
  const maxSeconds = parseFloat(secondsArg);
  const options = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    executionProviders: ['cpu'],
  };
  if (profile) {
    options.enableProfiling = true;
    options.profileFilePrefix = profile;
  }
  const session = await ort.InferenceSession.create(model, options);
  const name = session.inputNames[0];
  // The exported zoo's input is [batch, 3, H, W] with a symbolic batch: H and W from the model.
  const meta = session.inputMetadata ? session.inputMetadata[0] : null;
  let dims = meta && meta.shape ? meta.shape.map((d) => (typeof d === 'number' ? d : batch)) : null;
  if (!dims) throw new Error(`${model}: the input's shape is not in the model's metadata`);
  dims[0] = batch;
  const n = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  let s = 12345;
  for (let i = 0; i < n; ++i) {  // the same kind of input as rooflens: uniform in [-1, 1)
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = (s / 4294967296) * 2 - 1;
  }
  const feeds = {[name]: new ort.Tensor('float32', data, dims)};
  // Warm-up: 3 runs or 1 s, whichever is longer (as rooflens measure warms up).
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 3 || Number(process.hrtime.bigint() - t0) / 1e9 < Math.min(1, maxSeconds / 4); ++i)
    await session.run(feeds);
  const times = [];
  const start = process.hrtime.bigint();
  while (times.length < 5 || (Number(process.hrtime.bigint() - start) / 1e9 < maxSeconds && times.length < 1000)) {
    const a = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - a) / 1e9);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const q1 = times[Math.floor(times.length / 4)], q3 = times[Math.floor((3 * times.length) / 4)];
  const out = {model, batch, threads, input: dims.join('x'), runs: times.length, median_s: median,
               throughput: batch / median, throughput_q1: batch / q3, throughput_q3: batch / q1,
               ort_version: ort.env.versions ? ort.env.versions.common : 'unknown'};
  if (profile) out.profile = session.endProfiling();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  console.error(`ort_infer: ${e.message || e}`);
  process.exit(1);
});
