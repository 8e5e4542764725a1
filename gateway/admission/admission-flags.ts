// --enable-admission-plugins and --disable-admission-plugins, as kube-apiserver 1.32 checks them: every name must be
// one of upstream's plugins, and no name may be in both lists. Which plugins exist here, and in what order they run,
// is the one list of plugins.ts; these flags only take some of it out.

/** Every admission plugin kube-apiserver 1.32 knows. */
export const UPSTREAM_ADMISSION_PLUGINS: readonly string[] = [
  'AlwaysAdmit',
  'AlwaysDeny',
  'AlwaysPullImages',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'ClusterTrustBundleAttest',
  'DefaultIngressClass',
  'DefaultStorageClass',
  'DefaultTolerationSeconds',
  'DenyServiceExternalIPs',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'ImagePolicyWebhook',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'MutatingAdmissionWebhook',
  'NamespaceAutoProvision',
  'NamespaceExists',
  'NamespaceLifecycle',
  'NodeRestriction',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'PodNodeSelector',
  'PodSecurity',
  'PodTolerationRestriction',
  'Priority',
  'ResourceQuota',
  'RuntimeClass',
  'ServiceAccount',
  'StorageObjectInUseProtection',
  'TaintNodesByCondition',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
];

export interface AdmissionOptions {
  /** --enable-admission-plugins, as given. */
  readonly enable: readonly string[];
  /** --disable-admission-plugins, as given. */
  readonly disable: readonly string[];
  /**
   * Whether a plugin of the list runs. Every plugin Gatehouse has runs unless disabled: the ones upstream also turns
   * on by default, NodeRestriction (which runs here while the Node authorizer is in the chain, whatever the flags
   * say, as before these flags), and RBAC escalation prevention, which upstream does in RBAC's storage rather than
   * as a plugin and so cannot be named here.
   */
  enabled(name: string): boolean;
}

/** Throws an Error with upstream's wording; options.ts turns it into an OptionsError. */
export function parseAdmissionOptions(enableFlag: readonly string[], disableFlag: readonly string[]): AdmissionOptions {
  const split = (values: readonly string[]) =>
    values
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter((v) => v !== '');
  const enable = split(enableFlag);
  const disable = split(disableFlag);
  const known = new Set(UPSTREAM_ADMISSION_PLUGINS);
  const problems: string[] = [];
  for (const name of enable)
    if (!known.has(name)) problems.push(`enable-admission-plugins plugin "${name}" is unknown`);
  for (const name of disable)
    if (!known.has(name)) problems.push(`disable-admission-plugins plugin "${name}" is unknown`);
  const both = [...new Set(enable.filter((name) => disable.includes(name)))].sort();
  if (both.length > 0)
    problems.push(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const disabled = new Set(disable);
  return { enable, disable, enabled: (name) => !disabled.has(name) };
}

/**
 * The plugins that run, in the list's order, and a warning for each plugin asked for by --enable-admission-plugins
 * that Gatehouse does not have: upstream's name is accepted, so flags carried over from kube-apiserver start, but
 * nothing runs under it.
 */
export function selectAdmissionPlugins<P extends { readonly name: string }>(
  plugins: readonly P[],
  options: AdmissionOptions,
): { plugins: P[]; warnings: string[] } {
  const present = new Set(plugins.map((p) => p.name));
  const warnings = options.enable
    .filter((name) => !present.has(name))
    .map(
      (name) =>
        `admission plugin ${name} is not implemented by Gatehouse: --enable-admission-plugins=${name} has no effect`,
    );
  return { plugins: plugins.filter((p) => options.enabled(p.name)), warnings };
}
