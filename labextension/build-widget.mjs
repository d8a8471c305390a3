// Bundles src/widget/ (the run widget's view, markdown-it and DOMPurify) into the one ES module
// anywidget loads. The output is committed; CI rebuilds it and fails if it differs.
import { build } from "esbuild";

await build({
  entryPoints: ["src/widget/index.js"],
  outfile: "../jupyter_agents/notebook/static/run_view.js",
  bundle: true,
  format: "esm",
  target: "es2020",
  minify: true,
  legalComments: "eof",
  banner: {
    js: "// Built from labextension/src/widget by `npm run build:widget`; do not edit by hand.",
  },
  logLevel: "warning",
});
