// Extra build configuration merged by jupyter-builder (package.json: jupyterlab.webpackConfig).
// The prebuilt extension is committed and CI checks that a rebuild reproduces it. rspack's
// default ("deterministic") module ids hash a path that includes the checkout's location, so
// two clones built different files; "natural" ids depend only on the sources.
module.exports = {
  optimization: { moduleIds: 'natural' }
};
