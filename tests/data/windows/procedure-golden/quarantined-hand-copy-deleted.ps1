# windows.dll_load_fails (error)
Replace or remove <WORK>\procedure\hand\cudnn\bin\cudnn64_9.dll (a whole x64 copy of the same cuDNN set belongs there)
cudnnup which cudnn64_9.dll -v   # every copy and why it lost
