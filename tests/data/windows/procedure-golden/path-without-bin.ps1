# windows.cudnn_not_on_path (error)
cudnnup env --persist --dir <WORK>\procedure\CUDA\v12.4\bin   # puts it first in your user PATH (registry) for every program started from now on
Then open a new terminal (and restart Jupyter or the IDE): running programs keep their old PATH
cudnnup which cudnn64_9.dll -v   # in the new terminal: which cudnn64_9.dll a program gets, and why
