import type { AnyTool } from '../contracts/tool.js';
import { readFileTool } from './read-file-tool.js';
import { writeFileTool } from './write-file-tool.js';
import { editFileTool } from './edit-file-tool.js';
import { globTool } from './glob-tool.js';
import { createGrepTool, type GrepToolOptions } from './grep-tool.js';
import { createBashTool, type BashToolOptions } from './bash-tool.js';
import { bashKillTool, bashOutputTool } from './background-tools.js';

export interface BuiltinToolsOptions {
  /** Config `agent.bash`. */
  bash?: BashToolOptions;
  grep?: GrepToolOptions;
}

/** The local tools: read_file, write_file, edit_file, glob, grep, bash, and bash_output/bash_kill for background commands. */
export function createBuiltinTools(options: BuiltinToolsOptions = {}): AnyTool[] {
  return [readFileTool, writeFileTool, editFileTool, globTool, createGrepTool(options.grep), createBashTool(options.bash), bashOutputTool, bashKillTool];
}
