// Bundles the widgets anywidget loads, each into one ES module: the run widget (src/widget/,
// with markdown-it and DOMPurify) and the evaluation report (src/evalreport/). The output is
// committed; CI rebuilds it and fails if it differs.
import { build } from "esbuild";

const WIDGETS = [
  ["src/widget/index.js", "run_view.js", "src/widget"],
  ["src/evalreport/index.js", "eval_report.js", "src/evalreport"],
];

for (const [entry, out, from] of WIDGETS) {
  await build({
    entryPoints: [entry],
    outfile: `../jupyter_agents/notebook/static/${out}`,
    bundle: true,
    format: "esm",
    target: "es2020",
    minify: true,
    legalComments: "eof",
    banner: {
      js: `// Built from labextension/${from} by \`npm run build:widget\`; do not edit by hand.`,
    },
    logLevel: "warning",
  });
}
