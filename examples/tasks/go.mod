// The example tasks are not part of the swetouch module: each task's code
// is built and tested only in its own workspace.
module example.com/swetouch-example-tasks

go 1.21
