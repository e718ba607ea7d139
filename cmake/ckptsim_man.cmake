# Writes ckptsim.1.gz from the executable's own help: `ckptsim help` and `ckptsim help COMMAND`
# for every command it lists, so the man page cannot drift from the help.
# Usage: cmake -DCKPTSIM=path/to/ckptsim -DOUT=path/to/ckptsim.1.gz -P ckptsim_man.cmake

function(run_ckptsim out_var)
  execute_process(COMMAND ${CKPTSIM} ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ckptsim ${ARGN} exited with ${rc}")
  endif()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Help text shown as is (.nf): backslashes escaped, a leading '.' or '\'' made literal, and '-'
# written as \- so options stay ASCII hyphen-minus when rendered.
function(roff_literal out_var text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out_var} ".nf\n${text}.fi\n" PARENT_SCOPE)
endfunction()

run_ckptsim(version --version)
string(REGEX MATCH "^ckptsim ([^ \n]+)" _ "${version}")
set(number ${CMAKE_MATCH_1})
run_ckptsim(help help)

string(CONCAT page
  ".TH CKPTSIM 1 \"\" \"ckptsim ${number}\" \"User Commands\"\n"
  ".SH NAME\nckptsim \\- discrete\\-event simulator of Apache Flink checkpointing\n"
  ".SH SYNOPSIS\n.B ckptsim\n.I COMMAND\n[\\fIOPTIONS\\fR]\n"
  ".SH DESCRIPTION\n")
roff_literal(body "${help}")
string(APPEND page "${body}")

# The commands are the lines under "Subcommands:" of the top-level help.
string(FIND "${help}" "Subcommands:" at)
string(SUBSTRING "${help}" ${at} -1 commands_text)
string(REGEX MATCHALL "\n  [a-z]+ " commands "${commands_text}")
string(APPEND page ".SH COMMANDS\n")
foreach(command ${commands})
  string(STRIP "${command}" command)
  run_ckptsim(command_help help ${command})
  roff_literal(body "${command_help}")
  string(APPEND page ".SS ${command}\n${body}")
endforeach()

roff_literal(version_body "${version}")
string(APPEND page ".SH VERSION\n${version_body}"
  ".SH FILES\n.TP\n.I /usr/share/ckptsim/scenarios\n"
  "example scenarios: the seed incident and its variants (seed/), the field catalog (catalog/),\n"
  "examples/ and oracles/\n"
  ".TP\n.I /usr/share/doc/ckptsim\nREADME.md and docs/ (scenario format, sweeps, report)\n")

get_filename_component(dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
string(REGEX REPLACE "\\.gz$" "" plain ${OUT})
file(WRITE ${plain} "${page}")
# -n: no name or time stamp in the gzip header, so the page is the same bytes every build.
execute_process(COMMAND gzip -9nf ${plain} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${plain} failed")
endif()
