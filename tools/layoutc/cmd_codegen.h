/* tools/layoutc: the code-generation commands (repack, emit-llvm). */
#ifndef LAYOUTC_CMD_CODEGEN_H
#define LAYOUTC_CMD_CODEGEN_H

int cmd_repack(int argc, char **argv);
int cmd_emit_llvm(int argc, char **argv);

#endif
