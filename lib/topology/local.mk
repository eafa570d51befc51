# topology: sources added by the component
