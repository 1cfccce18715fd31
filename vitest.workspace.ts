// One vitest project per package; each package's vitest.config.ts names its own tests. `examples`
// runs the README's code and installs the packed tarballs into a project outside the repository.
export default ["packages/*/vitest.config.ts", "examples/vitest.config.ts"]
