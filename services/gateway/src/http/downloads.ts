import fs from 'node:fs';
import path from 'node:path';
import { Router } from 'express';

/**
 * The agent downloads the setup wizard links to: the installer script and the single-file Linux
 * agent. Only these names are served; the Windows build does not exist yet and says so.
 */
export function downloadsRouter(files: { installer?: string; linuxAgent?: string }): Router {
  const router = Router();
  const serve =
    (file: string | undefined, type: string) => (_req: unknown, res: import('express').Response) => {
      if (!file || !fs.existsSync(file)) {
        res.status(404).json({ message: 'This download is not available on this server', code: 'NOT_FOUND' });
        return;
      }
      res.setHeader('Content-Type', type);
      res.setHeader('Content-Disposition', `attachment; filename="${path.basename(file)}"`);
      res.sendFile(path.resolve(file));
    };
  router.get('/downloads/install.sh', serve(files.installer, 'text/x-shellscript; charset=utf-8'));
  router.get('/downloads/coffer-agent-linux-x64', serve(files.linuxAgent, 'application/octet-stream'));
  router.get('/downloads/coffer-agent-windows-x64.exe', (_req, res) => {
    res.status(404).json({
      message: 'The Windows agent is not available yet. Use the Linux agent, or build it from agent/.',
      code: 'NOT_FOUND',
    });
  });
  return router;
}
