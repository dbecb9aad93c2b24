// Starts the chart module (app/src/bin/charts.rs) after /charts.js, its wasm-bindgen glue, has
// loaded: the page adds both scripts when it first shows charts (app/src/components/charts_view.rs).
wasm_bindgen({ module_or_path: '/charts_bg.wasm' });
