#!/bin/sh
# The publish step of .github/workflows/release-sdk.yml: publishes sdk/ at its version unless npm has
# it already (the action runs this on every push to main with no changeset pending), with provenance.
set -eu
version=$(node -p "require('./sdk/package.json').version")
if npm view "@photobooth/sdk@$version" version >/dev/null 2>&1; then
  echo "@photobooth/sdk@$version is on npm already: nothing to publish."
  exit 0
fi
# npm checks the provenance's repository against the manifest's: the repository this workflow runs in.
(cd sdk && npm pkg set repository.type=git "repository.url=git+$GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git" repository.directory=sdk)
(cd sdk && npm publish --provenance --access public)
# "New tag: @photobooth/sdk@<version>": the action pushes it and makes its GitHub release.
pnpm changeset tag
