"""The ReqMemBench release on disk: built from a project (`build`) and imported as a runnable suite (`importer`)."""
