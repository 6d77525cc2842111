#!/usr/bin/env node
// Checks rendered Kubernetes manifests (scripts/check-deploy renders each
// overlay with `kubectl kustomize` and passes the YAML here):
//   1. every object validates against the Kubernetes API schemas
//      (kubernetes-models, pinned in package-lock.json); kinds the schemas
//      do not know (custom resources) must be listed in ALLOWED_CUSTOM;
//   2. every pod passes the Pod Security Standards' "restricted" profile,
//      and has a read-only root filesystem;
//   3. readiness and liveness probes ask /healthz (the services' own
//      health); the learner's checkpoint folder is a ReadWriteMany claim (a
//      learner that takes over a job must reach the last one's
//      checkpoints); a default-deny NetworkPolicy exists;
//   4. every container's command line parses with the real binary
//      (`BINARY --check-flags ARGS...` from --bin): $(VAR) references are
//      filled from the container's env (ConfigMap keys, pod name and
//      namespace), and files under a ConfigMap volume's mount path are
//      written from the ConfigMap so that config files parse too.
// Usage: node check.js --bin DIR --name OVERLAY < rendered.yaml
// Prints one line per finding; exit status 1 when there is any.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const { execFileSync } = require("child_process");
const YAML = require("yaml");

const ALLOWED_CUSTOM = new Set(["monitoring.coreos.com/v1/PodMonitor"]);
const RESTRICTED_VOLUME_TYPES = new Set([
  "configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
  "persistentVolumeClaim", "projected", "secret",
]);

function parseArgs(argv) {
  const args = { bin: "", name: "manifests" };
  for (let i = 2; i < argv.length; i++) {
    if (argv[i] === "--bin") args.bin = argv[++i];
    else if (argv[i] === "--name") args.name = argv[++i];
    else throw new Error(`check.js: unknown argument '${argv[i]}'`);
  }
  return args;
}

function objectName(o) {
  return `${o.kind}/${(o.metadata || {}).name}`;
}

// kubernetes-models' module for an apiVersion and kind, or null.
function modelFor(apiVersion, kind) {
  const group = apiVersion.includes("/") ? apiVersion : `v1`;
  try {
    const mod = require(`kubernetes-models/${group}/${kind}`);
    return mod[kind];
  } catch (e) {
    if (e.code === "MODULE_NOT_FOUND" ||
        e.code === "ERR_PACKAGE_PATH_NOT_EXPORTED") return null;
    throw e;
  }
}

function checkSchema(o, findings) {
  const Model = modelFor(o.apiVersion, o.kind);
  if (!Model) {
    if (!ALLOWED_CUSTOM.has(`${o.apiVersion}/${o.kind}`)) {
      findings.push(`${objectName(o)}: no schema for ${o.apiVersion} ${o.kind}`);
    }
    return;
  }
  try {
    new Model(o).validate();
  } catch (e) {
    findings.push(`${objectName(o)}: schema: ${e.message}`);
  }
}

function podSpecOf(o) {
  if (o.kind === "Pod") return o.spec;
  const t = o.spec && o.spec.template;
  return t && t.spec ? t.spec : null;
}

// The "restricted" Pod Security Standard (kubernetes.io/docs/concepts/
// security/pod-security-standards), as of Kubernetes 1.30, plus a
// read-only root filesystem.
function checkRestricted(o, spec, findings) {
  const where = objectName(o);
  const bad = (what) => findings.push(`${where}: restricted profile: ${what}`);
  for (const field of ["hostNetwork", "hostPID", "hostIPC"]) {
    if (spec[field]) bad(`${field} is true`);
  }
  for (const v of spec.volumes || []) {
    const type = Object.keys(v).find((k) => k !== "name");
    if (!RESTRICTED_VOLUME_TYPES.has(type)) {
      bad(`volume ${v.name} is a ${type} volume`);
    }
  }
  const pod = spec.securityContext || {};
  const containers = [...(spec.initContainers || []), ...(spec.containers || [])];
  for (const c of containers) {
    const sc = c.securityContext || {};
    const name = `container ${c.name}`;
    if (sc.privileged) bad(`${name} is privileged`);
    if (sc.allowPrivilegeEscalation !== false) {
      bad(`${name}: allowPrivilegeEscalation must be false`);
    }
    const caps = sc.capabilities || {};
    if (!(caps.drop || []).includes("ALL")) bad(`${name}: must drop ALL capabilities`);
    for (const cap of caps.add || []) {
      if (cap !== "NET_BIND_SERVICE") bad(`${name}: adds capability ${cap}`);
    }
    const nonRoot = sc.runAsNonRoot ?? pod.runAsNonRoot;
    if (nonRoot !== true) bad(`${name}: runAsNonRoot must be true`);
    if ((sc.runAsUser ?? pod.runAsUser) === 0) bad(`${name}: runAsUser is 0`);
    const seccomp = (sc.seccompProfile || pod.seccompProfile || {}).type;
    if (seccomp !== "RuntimeDefault" && seccomp !== "Localhost") {
      bad(`${name}: seccompProfile must be RuntimeDefault or Localhost`);
    }
    for (const p of c.ports || []) {
      if (p.hostPort) bad(`${name}: hostPort ${p.hostPort}`);
    }
    if (sc.readOnlyRootFilesystem !== true) {
      bad(`${name}: readOnlyRootFilesystem must be true`);
    }
  }
}

// Readiness and liveness from the services' own health (/healthz on the
// metrics port, common/metrics/health_checks.h), not from a port that answers.
function checkProbes(o, spec, findings) {
  for (const c of spec.containers || []) {
    for (const probe of ["readinessProbe", "livenessProbe"]) {
      const get = (c[probe] || {}).httpGet;
      if (!get || get.path !== "/healthz") {
        findings.push(`${objectName(o)} container ${c.name}: ${probe} must ` +
                      "be an httpGet of /healthz");
      }
    }
  }
}

// $(VAR) in an argument, from the container's env.
function expandEnv(arg, env) {
  return arg.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name) =>
    name in env ? env[name] : whole);
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function containerEnv(o, c, configMaps) {
  const env = {};
  const podName = `${o.metadata.name}-0`;
  for (const e of c.env || []) {
    if ("value" in e) {
      env[e.name] = e.value;
    } else if (e.valueFrom && e.valueFrom.fieldRef) {
      const field = e.valueFrom.fieldRef.fieldPath;
      env[e.name] = field === "metadata.namespace"
        ? o.metadata.namespace : field === "metadata.name" ? podName : "10.0.0.1";
    } else if (e.valueFrom && e.valueFrom.configMapKeyRef) {
      const ref = e.valueFrom.configMapKeyRef;
      const data = (configMaps[ref.name] || {}).data || {};
      if (!(ref.key in data)) {
        throw new Error(`env ${e.name}: ConfigMap ${ref.name} has no key ${ref.key}`);
      }
      env[e.name] = data[ref.key];
    }
  }
  return env;
}

// Writes each ConfigMap volume's files under `dir` and returns
// [[mountPath, local folder]] to rewrite arguments with.
function configMapMounts(spec, c, configMaps, dir) {
  const rewrites = [];
  for (const m of c.volumeMounts || []) {
    const v = (spec.volumes || []).find((x) => x.name === m.name);
    if (!v || !v.configMap) continue;
    const cm = configMaps[v.configMap.name];
    if (!cm) throw new Error(`volume ${v.name}: no ConfigMap ${v.configMap.name}`);
    const local = fs.mkdtempSync(path.join(dir, "cm-"));
    const items = v.configMap.items ||
      Object.keys(cm.data || {}).map((key) => ({ key, path: key }));
    for (const item of items) {
      fs.writeFileSync(path.join(local, item.path), (cm.data || {})[item.key] ?? "");
    }
    rewrites.push([m.mountPath, local]);
  }
  return rewrites;
}

function checkFlags(o, spec, configMaps, bin, findings) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mmapzero-check-"));
  try {
    for (const c of spec.containers || []) {
      const where = `${objectName(o)} container ${c.name}`;
      if (!c.command || c.command.length !== 1) {
        findings.push(`${where}: command must name one mmapzero binary`);
        continue;
      }
      const binary = path.join(bin, c.command[0]);
      if (!fs.existsSync(binary)) {
        findings.push(`${where}: no binary ${c.command[0]} in ${bin}`);
        continue;
      }
      let args;
      try {
        const env = containerEnv(o, c, configMaps);
        const rewrites = configMapMounts(spec, c, configMaps, dir);
        args = (c.args || []).map((a) => {
          let out = expandEnv(a, env);
          for (const [mount, local] of rewrites) {
            // The mount path as a whole path prefix: /etc/mmapzero, not
            // /etc/mmapzero-tls.
            out = out.replace(new RegExp(`${escapeRegExp(mount)}(?=/|$)`, "g"), local);
          }
          return out;
        });
      } catch (e) {
        findings.push(`${where}: ${e.message}`);
        continue;
      }
      try {
        execFileSync(binary, ["--check-flags", ...args],
          { stdio: ["ignore", "pipe", "pipe"], timeout: 60000 });
      } catch (e) {
        const why = `${e.stderr || ""}${e.stdout || ""}`.trim() || e.message;
        findings.push(`${where}: ${c.command[0]} --check-flags ${args.join(" ")}: ${why}`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function checkLearnerCheckpoints(objects, findings) {
  const claims = Object.fromEntries(objects
    .filter((o) => o.kind === "PersistentVolumeClaim")
    .map((o) => [o.metadata.name, o]));
  const learner = objects.find((o) => o.kind === "StatefulSet" &&
                                      o.metadata.name === "learner");
  if (!learner) {
    findings.push("no StatefulSet/learner");
    return;
  }
  const spec = podSpecOf(learner);
  const mount = (spec.containers[0].volumeMounts || [])
    .find((m) => m.mountPath === "/var/lib/mmapzero");
  const volume = mount && (spec.volumes || []).find((v) => v.name === mount.name);
  const claim = volume && volume.persistentVolumeClaim &&
                claims[volume.persistentVolumeClaim.claimName];
  if (!claim || !(claim.spec.accessModes || []).includes("ReadWriteMany")) {
    findings.push("StatefulSet/learner: /var/lib/mmapzero must be a " +
                  "ReadWriteMany PersistentVolumeClaim shared by every learner pod");
  }
}

function main() {
  const args = parseArgs(process.argv);
  const objects = YAML.parseAllDocuments(fs.readFileSync(0, "utf8"))
    .map((d) => d.toJS()).filter((o) => o);
  const findings = [];
  const configMaps = Object.fromEntries(objects
    .filter((o) => o.kind === "ConfigMap").map((o) => [o.metadata.name, o]));
  for (const o of objects) {
    checkSchema(o, findings);
    const spec = podSpecOf(o);
    if (!spec) continue;
    checkRestricted(o, spec, findings);
    checkProbes(o, spec, findings);
    if (args.bin) checkFlags(o, spec, configMaps, args.bin, findings);
  }
  if (!objects.some((o) => o.kind === "NetworkPolicy" &&
                           Object.keys(o.spec.podSelector || {}).length === 0 &&
                           !o.spec.ingress && !o.spec.egress &&
                           (o.spec.policyTypes || []).length === 2)) {
    findings.push("no default-deny NetworkPolicy (empty podSelector, no rules)");
  }
  checkLearnerCheckpoints(objects, findings);
  for (const f of findings) console.log(`${args.name}: ${f}`);
  const pods = objects.filter(podSpecOf).length;
  console.log(`${args.name}: ${objects.length} objects, ${pods} pod templates, ` +
              `${findings.length} findings`);
  process.exit(findings.length ? 1 : 0);
}

main();
