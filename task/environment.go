package task

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
)

// Environment is a Harbor task's [environment]: the image its trials run
// in (docker_image) and the checkout in it the agent works in (workdir),
// either "" when task.toml does not say. A task.json, or a folder without
// task.toml, names none.
func Environment(dir string) (image, workdir string, err error) {
	p := filepath.Join(dir, "task.toml")
	kv, err := readTOML(p)
	if os.IsNotExist(err) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	return environmentOf(kv, p)
}

// environmentOf reads [environment] from task.toml's keys (p is its
// path, for the error): the one reader of it, for Environment and for
// loading a Harbor task.
func environmentOf(kv map[string]string, p string) (image, workdir string, err error) {
	image, workdir = kv["environment.docker_image"], kv["environment.workdir"]
	if workdir != "" && (!path.IsAbs(workdir) || path.Clean(workdir) != workdir || workdir == "/") {
		return "", "", fmt.Errorf("%s: field environment.workdir: want a clean absolute path other than /, got %q", p, workdir)
	}
	return image, workdir, nil
}
