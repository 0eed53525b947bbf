// The setup wizard's other ways to install on Linux, beside the spec's command: the package from
// this server's APT or YUM repository (Debian/Ubuntu, RHEL/CentOS/Fedora) and the agent's Docker image,
// with the root-shell switch applied to them too. The spec's one-liner stays the default.
import { browserForFile, newSession, registeredUser, signIn, visible } from './helpers';
import { packageCommand } from '../../web/src/features/agents/wizardCommands';

const browser = browserForFile();

describe('setup wizard: packages and Docker', () => {
  it('offers apt, dnf and Docker beside the one-liner, with or without sudo', async () => {
    const user = await registeredUser('wizard-pkg');
    const { page, context } = await newSession(browser());
    try {
      await signIn(page, user);
      await page.getByRole('button', { name: 'Open Setup Wizard' }).click();
      const wizard = page.getByTestId('setup-wizard');
      for (const step of [2, 3, 5]) {
        await wizard.getByRole('button', { name: 'Next' }).click();
        await visible(wizard.getByText(`Step ${step} of 6`));
      }
      const origin = new URL(page.url()).origin;
      expect(await wizard.getByTestId('install-command').innerText()).toBe(
        `curl -fsSL ${origin}/downloads/install.sh | sudo bash -s -- --server ${origin}`,
      );
      // Nothing chosen yet: the step shows the spec's command only.
      expect(await wizard.getByTestId('package-command').count()).toBe(0);
      const shown = () => wizard.getByTestId('package-command-line').allInnerTexts();

      await wizard.getByText('Debian/Ubuntu package (apt)').click();
      await visible(wizard.getByTestId('package-command'));
      expect(await shown()).toEqual(packageCommand('apt', origin).split('\n'));
      await wizard.getByText('RHEL/CentOS/Fedora package (dnf)').click();
      await visible(wizard.getByText('sudo dnf install -y coffer-agent'));
      expect(await shown()).toEqual(packageCommand('dnf', origin).split('\n'));
      await wizard.getByTestId('root-shell').click();
      await visible(wizard.getByText('dnf install -y coffer-agent', { exact: true }));
      expect(await shown()).toEqual(packageCommand('dnf', origin, { root: true }).split('\n'));
      expect((await shown()).join('\n')).not.toContain('sudo');

      await wizard.getByText('Docker', { exact: true }).click();
      await visible(wizard.getByText(/^docker run -d --name coffer-agent/));
      expect(await shown()).toEqual(packageCommand('docker', origin).split('\n'));
      // The spec's command is still there, unchanged but for the root switch.
      expect(await wizard.getByTestId('install-command').innerText()).toBe(
        `curl -fsSL ${origin}/downloads/install.sh | bash -s -- --server ${origin}`,
      );
    } finally {
      await context.close();
    }
  });
});
