// Starts the chart module (app/src/bin/charts.rs) after /charts.js, its wasm-bindgen glue, has
// loaded: the page adds both scripts when it first shows charts (app/src/components/charts_view.rs).
// The module says it is ready itself; a module that fails to start is said here.
wasm_bindgen({ module_or_path: '/charts_bg.wasm' }).catch((e) => {
  console.error('the chart module did not start', e);
  dispatchEvent(new Event('scorebench-charts-failed'));
});
