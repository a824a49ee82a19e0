import { execFile } from 'node:child_process'
import { cp, mkdir, readdir, symlink } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'

const exec = promisify(execFile)
export const repo = resolve(import.meta.dirname, '../..')
export const sdkDir = join(repo, 'sdk')

/** The environment without what `pnpm test` passes its scripts: each tool reads its own config. */
export const toolEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_)/i.test(key)))

export async function run(command: string, args: string[], cwd: string) {
  try {
    return await exec(command, args, { cwd, env: toolEnv, maxBuffer: 64 * 1024 * 1024 })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error })
  }
}

export type Packer = 'pnpm' | 'npm'

/**
 * The SDK as a third party gets it: packed by each packer (each runs the package's own `prepack`:
 * build, then the published manifest) from a copy of sdk/ in `work`, beside the repo's tsconfig
 * and node_modules, so that the workspace's manifest and dist never change under the tests
 * running beside this one. The copy's folder and each tarball's path.
 */
export async function packSdk(work: string, packers: readonly Packer[]): Promise<{ packDir: string; tarballs: Record<Packer, string> }> {
  const copy = join(work, 'repo')
  const packDir = join(copy, 'sdk')
  await cp(sdkDir, packDir, {
    recursive: true,
    filter: (path) => !/^\/?(node_modules|dist|\.package\.dev\.json)(\/|$)/.test(path.slice(sdkDir.length)),
  })
  for (const file of ['tsconfig.json', 'tsconfig.base.json']) await cp(join(repo, file), join(copy, file))
  await symlink(join(repo, 'node_modules'), join(copy, 'node_modules'))
  await symlink(join(sdkDir, 'node_modules'), join(packDir, 'node_modules'))
  const tarballs = {} as Record<Packer, string>
  // One after the other: each rebuilds the copy's dist in its prepack.
  for (const packer of packers) {
    const destination = join(work, `${packer}-pack`)
    await mkdir(destination)
    await run(packer, ['pack', '--pack-destination', destination], packDir)
    const [file] = await readdir(destination)
    tarballs[packer] = join(destination, file!)
  }
  return { packDir, tarballs }
}

/** A tarball's files in `destination` (its `package/` folder's contents). */
export async function unpack(tarball: string, destination: string): Promise<void> {
  await mkdir(destination, { recursive: true })
  await run('tar', ['-xzf', tarball, '-C', destination, '--strip-components=1'], destination)
}
