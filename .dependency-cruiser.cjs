// The import graph's rules, checked by `npm run lint` (dependency-cruiser;
// docs/adr/0007-no-import-cycles.md). Files within packages/*/src import each other without a
// cycle, type-only imports included.
/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-file-cycle",
      comment: "A file must not reach itself through its imports (type-only imports count): split out what both sides need.",
      severity: "error",
      from: { path: "^packages/[^/]+/src/" },
      to: { circular: true }
    }
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["/dist/", "/node_modules/"] }
  }
}
