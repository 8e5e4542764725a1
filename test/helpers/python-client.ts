// Runs a script with the official Kubernetes Python client (Debian's python3-kubernetes, installed by `make test`)
// against a test Gatehouse. The interpreter is /usr/bin/python3 on purpose: the first python3 on PATH may be another
// one without the package. Spawned asynchronously, as kubectl is, because the gateway answers from this process.
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface PythonResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const PYTHON = '/usr/bin/python3';

/**
 * Runs `script` with KUBECONFIG set to a private copy of `kubeconfigPath` (the script loads it with
 * `kubernetes.config.load_kube_config()`), killing it after `timeoutMs`.
 */
export async function runPython(kubeconfigPath: string, script: string, timeoutMs = 30_000): Promise<PythonResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-python-'));
  try {
    const kubeconfig = path.join(dir, 'kubeconfig');
    const file = path.join(dir, 'script.py');
    await copyFile(kubeconfigPath, kubeconfig);
    await writeFile(file, script);
    return await new Promise<PythonResult>((resolve, reject) => {
      const child = spawn(PYTHON, [file], {
        env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig, PYTHONDONTWRITEBYTECODE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
      });
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the script and returns its stdout, failing with its stderr when it exits non-zero. */
export async function pythonOk(kubeconfigPath: string, script: string, timeoutMs?: number): Promise<string> {
  const r = await runPython(kubeconfigPath, script, timeoutMs);
  if (r.code !== 0) throw new Error(`python exited ${r.code}:\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
}
