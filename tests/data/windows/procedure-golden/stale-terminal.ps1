# windows.cudnn_not_on_path (error)
Close and reopen the terminal (and restart Jupyter / the IDE that started it)
cudnnup which cudnn64_9.dll -v   # in the new terminal: which cudnn64_9.dll a program gets, and why
# windows.stale_session_path (warning)
Close and reopen the terminal (and restart Jupyter / the IDE that started it)
or for this PowerShell session only:
$env:PATH = [Environment]::GetEnvironmentVariable('PATH','Machine') + ';' + [Environment]::GetEnvironmentVariable('PATH','User')
