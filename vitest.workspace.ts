// One vitest project per package; each package's vitest.config.ts names its own tests.
export default ["packages/*/vitest.config.ts"]
