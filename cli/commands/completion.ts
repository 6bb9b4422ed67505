/**
 * `capctl completion bash|zsh|fish`: a completion script for the shell, written from capctl's own
 * commands and options (so it never drifts from them). Commands, subcommands and options complete;
 * after `capctl run`, the bundled scenario names and files do too.
 */
import { readdirSync } from 'node:fs';
import { Argument, type Command } from 'commander';
import { projectPath } from '../../server/platform/paths.ts';

interface Node {
  /** `admin centres list`; '' for capctl itself. */
  path: string;
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  options: Array<{ long?: string; short?: string; description: string; takesValue: boolean }>;
}

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script: source <(capctl completion bash), or see the README')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
    .action((shell: 'bash' | 'zsh' | 'fish') => {
      const nodes = commandTree(program);
      process.stdout.write({ bash: bashScript, zsh: zshScript, fish: fishScript }[shell](nodes, bundledScenarios()));
    });
}

function commandTree(program: Command): Node[] {
  const nodes: Node[] = [];
  const visit = (command: Command, path: string) => {
    const visible = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    nodes.push({
      path,
      description: command.description(),
      subcommands: visible.map((c) => ({ name: c.name(), description: c.description() })),
      options: [
        ...command.options.map((o) => ({
          ...(o.long ? { long: o.long } : {}),
          ...(o.short ? { short: o.short } : {}),
          description: o.description,
          takesValue: o.required || o.optional,
        })),
        { long: '--help', short: '-h', description: 'display help', takesValue: false },
      ],
    });
    for (const sub of visible) visit(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  visit(program, '');
  return nodes;
}

function bundledScenarios(): string[] {
  try {
    return readdirSync(projectPath('fixtures', 'scenarios'))
      .filter((name) => name.endsWith('.yaml'))
      .map((name) => name.slice(0, -'.yaml'.length));
  } catch {
    return [];
  }
}

const words = (node: Node) => [
  ...node.subcommands.map((s) => s.name),
  ...node.options.flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f))),
];

function bashScript(nodes: Node[], scenarios: string[]): string {
  const cases = nodes
    .map((node) => `    ${JSON.stringify(node.path)}) echo ${shellQuote(words(node).join(' '))} ;;`)
    .join('\n');
  const commands = nodes
    .filter((n) => n.path !== '')
    .map((n) => JSON.stringify(n.path))
    .join('|');
  return `# capctl completion for bash: source <(capctl completion bash), or save it in ~/.local/share/bash-completion/completions/capctl
_capctl_words() {
  case "$1" in
${cases}
  esac
}
_capctl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next i
  for ((i = 1; i < COMP_CWORD; i++)); do
    next="\${path:+$path }\${COMP_WORDS[i]}"
    case "$next" in ${commands}) path="$next" ;; esac
  done
  local candidates
  candidates="$(_capctl_words "$path")"
  if [[ "$path" == "run" && "$cur" != -* ]]; then candidates+=" ${scenarios.join(' ')}"; fi
  COMPREPLY=($(compgen -W "$candidates" -- "$cur"))
}
complete -o default -F _capctl capctl
`;
}

function zshScript(nodes: Node[], scenarios: string[]): string {
  return `#compdef capctl
# capctl completion for zsh: source <(capctl completion zsh), through zsh's bash completion support
autoload -U +X bashcompinit && bashcompinit
${bashScript(nodes, scenarios).split('\n').slice(1).join('\n')}`;
}

function fishScript(nodes: Node[], scenarios: string[]): string {
  const lines = [
    '# capctl completion for fish: capctl completion fish > ~/.config/fish/completions/capctl.fish',
    `set -g __capctl_commands ${nodes
      .filter((n) => n.path !== '')
      .map((n) => fishQuote(n.path))
      .join(' ')}`,
    'function __capctl_path',
    '  set -l path ""',
    '  for word in (commandline -opc)[2..-1]',
    '    set -l next (string trim -- "$path $word")',
    '    if contains -- "$next" $__capctl_commands',
    '      set path $next',
    '    end',
    '  end',
    '  echo $path',
    'end',
    'complete -c capctl -f',
  ];
  for (const node of nodes) {
    const when = `-n ${fishQuote(`test (__capctl_path) = ${fishQuote(node.path)}`)}`;
    for (const sub of node.subcommands)
      lines.push(`complete -c capctl ${when} -a ${fishQuote(sub.name)} -d ${fishQuote(sub.description)}`);
    for (const option of node.options) {
      const flags = [option.long ? `-l ${option.long.slice(2)}` : '', option.short ? `-s ${option.short.slice(1)}` : '']
        .filter(Boolean)
        .join(' ');
      lines.push(
        `complete -c capctl ${when} ${flags}${option.takesValue ? ' -r' : ''} -d ${fishQuote(option.description)}`,
      );
    }
  }
  const run = `-n ${fishQuote(`test (__capctl_path) = run`)}`;
  lines.push(`complete -c capctl ${run} -F -a ${fishQuote(scenarios.join(' '))}`);
  return `${lines.join('\n')}\n`;
}

/** Single-quoted for bash (a quote inside is closed, escaped and reopened). */
const shellQuote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
/** Single-quoted for fish (backslash and quote escaped). */
const fishQuote = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
