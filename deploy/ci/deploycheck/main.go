// deploycheck: the offline checks of Coffer's deployment files that need Docker's own code.
//
//	deploycheck compose FILE [--env-file F]...   load FILE with the Compose Specification loader
//	                                             (schema, interpolation, consistency) and print
//	                                             the resolved project as JSON
//	deploycheck context DIR                      list the files `docker build DIR` would send,
//	                                             honouring DIR/.dockerignore as BuildKit does
//
// Built by deploy/ci/tools.sh from this folder's go.mod (pinned versions); used by the checks
// in deploy/ci/.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

func main() {
	if len(os.Args) < 3 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "compose":
		err = compose(os.Args[2:])
	case "context":
		err = buildContext(os.Args[2])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: deploycheck compose FILE [--env-file F]... | deploycheck context DIR")
	os.Exit(2)
}

// compose loads the file with only the given env files as its environment (never the caller's
// environment, never an implicit .env), exactly as `docker compose config` would resolve it.
func compose(args []string) error {
	file := args[0]
	var envFiles []string
	for i := 1; i < len(args); i++ {
		if args[i] != "--env-file" || i+1 >= len(args) {
			return fmt.Errorf("unexpected argument %q", args[i])
		}
		envFiles = append(envFiles, args[i+1])
		i++
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	opts := []cli.ProjectOptionsFn{
		cli.WithName("coffer"),
		cli.WithWorkingDirectory(filepath.Dir(abs)),
		cli.WithConsistency(true),
		cli.WithResolvedPaths(false),
	}
	if len(envFiles) > 0 {
		opts = append(opts, cli.WithEnvFiles(envFiles...), cli.WithDotEnv)
	}
	o, err := cli.NewProjectOptions([]string{abs}, opts...)
	if err != nil {
		return err
	}
	if len(envFiles) == 0 {
		o.EnvFiles = nil // no implicit .env: the check must not depend on a developer's file
	}
	project, err := o.LoadProject(context.Background())
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(project, "", "  ")
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(out, '\n'))
	return err
}

// buildContext walks dir and prints every file the .dockerignore there lets into the context.
func buildContext(dir string) error {
	var patterns []string
	if f, err := os.Open(filepath.Join(dir, ".dockerignore")); err == nil {
		patterns, err = ignorefile.ReadAll(f)
		f.Close()
		if err != nil {
			return err
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		return err
	}
	var files []string
	parents := map[string]patternmatcher.MatchInfo{}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		parent := parents[filepath.ToSlash(filepath.Dir(rel))]
		excluded, info, err := pm.MatchesUsingParentResults(rel, parent)
		if err != nil {
			return err
		}
		if d.IsDir() {
			parents[rel] = info
			// An excluded folder is skipped unless a `!` pattern could take something inside back.
			if excluded && !pm.Exclusions() {
				return filepath.SkipDir
			}
			return nil
		}
		if !excluded {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	_, err = fmt.Println(strings.Join(files, "\n"))
	return err
}
