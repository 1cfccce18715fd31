// The import graph's rules, checked by `npm run lint` (dependency-cruiser; docs/adr/0007-no-import-cycles.md,
// docs/architecture.md). Files within packages/*/src import each other without a cycle, type-only imports
// included, and the folders of packages/backend/src form layers: a folder imports only folders of
// a lower layer (its own files aside).

/** packages/backend/src's folders, bottom first. A folder sees only the layers below its own. */
const backendLayers = [
  ["codec", "config"],
  ["database", "access", "geo", "limits", "period"],
  ["events", "http"],
  ["identity", "legal", "transparency", "erasure", "experiments", "health", "policy", "telemetry"],
  ["consents", "retention", "scripts", "status"],
  ["records", "insight"],
  ["subjects"],
  ["instance"],
  ["adapters"]
]

const src = "^packages/backend/src/"
const layerRules = backendLayers.flatMap((layer, index) => {
  const below = backendLayers.slice(0, index).flat()
  return layer.map((folder) => ({
    name: `layer-${folder}`,
    comment: `${folder}/ may import only ${below.length === 0 ? "no other folder" : below.join(", ")} ` +
      "(packages/backend/src's layers in .dependency-cruiser.cjs): move what both sides need down a layer.",
    severity: "error",
    from: { path: `${src}${folder}/` },
    to: { path: `${src}(?!(?:${[folder, ...below].join("|")})/)[^/]+/` }
  }))
})

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-file-cycle",
      comment: "A file must not reach itself through its imports (type-only imports count): split out what both sides need.",
      severity: "error",
      from: { path: "^packages/[^/]+/src/" },
      to: { circular: true }
    },
    {
      name: "backend-folder-listed",
      comment: "Every folder of packages/backend/src has a layer in .dependency-cruiser.cjs.",
      severity: "error",
      from: { path: `${src}(?!(?:${backendLayers.flat().join("|")})/)[^/]+/` },
      to: {}
    },
    ...layerRules
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["/dist/", "/node_modules/"] }
  }
}
