// A module-resolution hook (module.register, Node >= 20.6) for the npm package
// @modelcontextprotocol/conformance: its bundle imports `globSync` from "fs" at
// top level, which Node 20 does not export, so the bundle fails to link before
// any subcommand runs. For importers inside that package's dist folder only,
// "fs"/"node:fs" resolve to fs-glob-shim.mjs: node:fs plus a small globSync.
// Everything else resolves as usual, the package files stay as npm put them.
const shim = new URL('./fs-glob-shim.mjs', import.meta.url).href;

function fromConformance(parentURL) {
  return typeof parentURL === 'string' &&
    parentURL.includes('/node_modules/@modelcontextprotocol/conformance/dist/');
}

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && fromConformance(context.parentURL)) {
    return { url: shim, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
